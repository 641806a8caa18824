/**
 * k8s.io/apimachinery `duration.HumanDuration`: the compact age kubectl shows (`45s`, `3m20s`, `5h`,
 * `2d3h`, `1y30d`). More than a second in the future is `<invalid>`.
 */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.trunc(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const rest = seconds % 60;
    return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const rest = minutes % 60;
    return rest === 0 ? `${hours}h` : `${hours}h${rest}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const rest = hours % 24;
    return rest === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${rest}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}
