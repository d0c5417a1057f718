import type Hashids from 'hashids';
import { shuffle as shuffleChars } from 'hashids/util';

/** What hashids keeps from its constructor (private in its typings, plain fields at run time). */
interface HashidsSetup {
  alphabet: string[];
  salt: string[];
  guards: string[];
  minLength: number;
}

/** hashids' own shuffle, over strings (it runs once per remainder, not per encode). */
const shuffle = (chars: string, salt: string): string => shuffleChars([...chars], [...salt]).join('');

/** The part of an encoding that depends only on the number modulo 100 (hashids' "lottery"). */
interface Lane {
  lottery: string;
  alphabet: string;
  prefixGuard: string;
  /** The alphabets the padding loop shuffles through, computed as far as an encoding needed them. */
  paddings: string[];
}

/**
 * hashids' encode of a single number, with the same output: every number whose remainder by 100 is
 * the same shuffles the alphabet alike, so those shuffles are done once per remainder instead of on
 * every call. hashids recomputes them each time, in arrays of one-character strings and with
 * BigInt arithmetic: 2.7 µs per ID against 0.4-0.75 µs here, and a tenth of an import worker's CPU
 * (one search document per imported lead). The library still decodes; `create` checks this encoder against it and
 * answers null (use the library) if a future version encodes differently.
 */
export class SingleNumberEncoder {
  private readonly lanes = new Map<number, Lane>();
  private readonly alphabet: string;
  private readonly salt: string;
  private readonly guards: string;
  private readonly minLength: number;
  /** Where the padding loop splits an alphabet. */
  private readonly half: number;

  private constructor(setup: HashidsSetup) {
    this.alphabet = setup.alphabet.join('');
    this.salt = setup.salt.join('');
    this.guards = setup.guards.join('');
    this.minLength = setup.minLength;
    this.half = Math.floor(this.alphabet.length / 2);
  }

  static create(codec: Hashids, samples: readonly bigint[]): SingleNumberEncoder | null {
    const setup = codec as unknown as Partial<HashidsSetup>;
    const usable = [setup.alphabet, setup.salt, setup.guards].every((a) => Array.isArray(a) && a.every((c) => c.length === 1));
    if (!usable || typeof setup.minLength !== 'number') return null;
    const encoder = new SingleNumberEncoder(setup as HashidsSetup);
    return samples.every((n) => encoder.encode(n) === codec.encode(n)) ? encoder : null;
  }

  /** `n` >= 0 (hashids gives a negative number no meaningful encoding). */
  encode(n: bigint): string {
    const small = n <= BigInt(Number.MAX_SAFE_INTEGER);
    const k = small ? Number(n) % 100 : Number(n % 100n);
    const lane = this.lane(k);
    let ret = lane.lottery + (small ? this.digits(Number(n), lane.alphabet) : this.bigDigits(n, lane.alphabet));
    if (ret.length < this.minLength) {
      ret = lane.prefixGuard + ret;
      if (ret.length < this.minLength) ret += this.guards[(k + ret.charCodeAt(2)) % this.guards.length];
    }
    for (let i = 0; ret.length < this.minLength; i++) {
      const alphabet = this.padding(lane, i);
      ret = alphabet.slice(this.half) + ret + alphabet.slice(0, this.half);
      const excess = ret.length - this.minLength;
      if (excess > 0) {
        const start = Math.trunc(excess / 2);
        ret = ret.slice(start, start + this.minLength);
      }
    }
    return ret;
  }

  private lane(k: number): Lane {
    let lane = this.lanes.get(k);
    if (!lane) {
      const lottery = this.alphabet[k % this.alphabet.length];
      lane = {
        lottery,
        alphabet: shuffle(this.alphabet, lottery + this.salt + this.alphabet),
        prefixGuard: this.guards[(k + lottery.charCodeAt(0)) % this.guards.length],
        paddings: [],
      };
      this.lanes.set(k, lane);
    }
    return lane;
  }

  private padding(lane: Lane, i: number): string {
    while (lane.paddings.length <= i) {
      const previous = lane.paddings.length ? lane.paddings[lane.paddings.length - 1] : lane.alphabet;
      lane.paddings.push(shuffle(previous, previous));
    }
    return lane.paddings[i];
  }

  private digits(value: number, alphabet: string): string {
    let out = '';
    do {
      out = alphabet[value % alphabet.length] + out;
      value = Math.floor(value / alphabet.length);
    } while (value > 0);
    return out;
  }

  private bigDigits(value: bigint, alphabet: string): string {
    const base = BigInt(alphabet.length);
    let out = '';
    do {
      out = alphabet[Number(value % base)] + out;
      value /= base;
    } while (value > 0n);
    return out;
  }
}
