/** Sentence splitting per script (lib/text.ts); line breaking is covered with the captions in captions.test.ts. */
import { splitSentences } from '../../lib/text';

describe('splitSentences', () => {
  test('per script', () => {
    expect(splitSentences('Meet Acme. Visit acme.io today! Really?', 'en')).toEqual(['Meet Acme.', 'Visit acme.io today!', 'Really?']);
    expect(splitSentences('「すごい！」と言われます。次へ。', 'ja')).toEqual(['「すごい！」と言われます。', '次へ。']);
    expect(splitSentences('速い！簡単！「今すぐ」。', 'ja')).toEqual(['速い！', '簡単！', '「今すぐ」。']);
    expect(splitSentences('पेश है Acme। आइए देखें।', 'hi')).toEqual(['पेश है Acme।', 'आइए देखें।']);
    expect(splitSentences('هل جربته؟ جرّبه اليوم.', 'ar')).toEqual(['هل جربته؟', 'جرّبه اليوم.']);
    expect(splitSentences('ขอแนะนำ Acme มาดูกัน', 'th')).toEqual(['ขอแนะนำ', 'Acme', 'มาดูกัน']);
  });
});
