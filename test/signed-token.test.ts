import { signToken, verifyToken } from '../lib/signed-token';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('signed tokens', () => {
  it('give back their claims only to the same secret and purpose', () => {
    const token = signToken('secret', 'files', { k: 'a/b', x: 1 });
    expect(verifyToken('secret', 'files', token)).toEqual({ k: 'a/b', x: 1 });
    expect(verifyToken('other', 'files', token)).toBeNull();
    expect(verifyToken('secret', 'tracking', token)).toBeNull();
  });

  it('refuse every other spelling of the signature, even one that decodes to the same bytes', () => {
    for (let n = 0; n < 50; n++) {
      const token = signToken('secret', 'files', { n });
      const last = token.at(-1) as string;
      // The last character's two low bits carry nothing: three other characters decode alike.
      const twins = [...ALPHABET].filter((c) => c !== last && ALPHABET.indexOf(c) >> 2 === ALPHABET.indexOf(last) >> 2);
      expect(twins).toHaveLength(3);
      for (const c of twins) {
        const forged = token.slice(0, -1) + c;
        expect(Buffer.from(forged.split('.')[1], 'base64url')).toEqual(Buffer.from(token.split('.')[1], 'base64url'));
        expect(verifyToken('secret', 'files', forged)).toBeNull();
      }
      expect(verifyToken('secret', 'files', `${token.slice(0, -2)}xx`)).toBeNull();
    }
  });
});
