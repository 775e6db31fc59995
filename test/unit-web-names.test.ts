// The web interface shows bidirectional controls in file names escaped (src/browser/format.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { visibleName } from '../src/browser/format.ts';

test('a right-to-left override cannot pass an .exe off as a .png', () => {
  assert.is(visibleName('rtl\u202Egnp.exe'), 'rtl<U+202E>gnp.exe');
});

test('every embedding, override, isolate and mark is shown; other text is left as it is', () => {
  const controls = ['\u061C', '\u200E', '\u200F', '\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];
  assert.is(
    visibleName(controls.join('')),
    '<U+061C><U+200E><U+200F><U+202A><U+202B><U+202C><U+202D><U+202E><U+2066><U+2067><U+2068><U+2069>',
  );
  for (const name of ['report.pdf', 'שלום.txt', 'مرحبا.wav', 'a\u200Db', 'ünïcödé €.bin', '']) assert.is(visibleName(name), name);
});

test.run();
