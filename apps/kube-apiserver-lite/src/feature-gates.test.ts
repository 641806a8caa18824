import { describe, expect, it } from 'vitest';
import { parseOptions } from './options.js';

const gatesOf = (argv: string[]) => {
  const options = parseOptions(argv);
  return { identity: options.apiServerIdentity, storageVersionAPI: options.storageVersionAPI, progressNotify: options.watchCacheProgressNotify };
};

describe('--feature-gates', () => {
  it('has every gate on by default', () => {
    expect(gatesOf([])).toEqual({ identity: true, storageVersionAPI: true, progressNotify: true });
  });

  it('turns each gate off as upstream spells it', () => {
    expect(gatesOf(['--feature-gates=StorageVersionAPI=false'])).toEqual({ identity: true, storageVersionAPI: false, progressNotify: true });
    expect(gatesOf(['--feature-gates=APIServerIdentity=false,StorageVersionAPI=false'])).toEqual({
      identity: false,
      storageVersionAPI: false,
      progressNotify: true,
    });
    expect(gatesOf(['--feature-gates=EfficientWatchResumption=False', '--feature-gates', 'StorageVersionAPI=0'])).toEqual({
      identity: true,
      storageVersionAPI: false,
      progressNotify: false,
    });
  });

  it('keeps the old flags as aliases, which --feature-gates overrides', () => {
    expect(gatesOf(['--storage-version-api=false'])).toEqual({ identity: false, storageVersionAPI: false, progressNotify: true });
    expect(gatesOf(['--watch-cache-progress-notify=false'])).toEqual({ identity: true, storageVersionAPI: true, progressNotify: false });
    expect(gatesOf(['--storage-version-api=false', '--feature-gates=APIServerIdentity=true'])).toEqual({
      identity: true,
      storageVersionAPI: false,
      progressNotify: true,
    });
  });

  it('refuses unknown gates, bad values and StorageVersionAPI without APIServerIdentity', () => {
    expect(() => parseOptions(['--feature-gates=Nope=true'])).toThrow(
      'invalid argument "Nope=true" for "--feature-gates" flag: unrecognized feature gate: Nope',
    );
    expect(() => parseOptions(['--feature-gates=StorageVersionAPI=maybe'])).toThrow(
      'invalid value of StorageVersionAPI=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(() => parseOptions(['--feature-gates=StorageVersionAPI'])).toThrow('malformed pair, expect string=bool');
    expect(() => parseOptions(['--feature-gates=APIServerIdentity=false'])).toThrow(
      'enabling StorageVersionAPI feature gate requires also enabling APIServerIdentity feature gate',
    );
  });
});
