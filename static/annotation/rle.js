/* COCO run-length encoding in the browser (column-major, like pycocotools): used by the editor and the review page.
   An ES module. */
export function countsFromString(s) {
  const counts = [];
  let p = 0;
  while (p < s.length) {
    let x = 0, k = 0, more = 1;
    while (more) {
      const c = s.charCodeAt(p) - 48;
      x |= (c & 0x1f) << (5 * k);
      more = c & 0x20;
      p++; k++;
      if (!more && (c & 0x10)) x |= -1 << (5 * k);
    }
    if (counts.length > 2) x += counts[counts.length - 2];
    counts.push(x);
  }
  return counts;
}

export function countsToString(counts) {
  let s = "";
  for (let i = 0; i < counts.length; i++) {
    let x = counts[i];
    if (i > 2) x -= counts[i - 2];
    let more = 1;
    while (more) {
      let c = x & 0x1f;
      x >>= 5;
      more = (c & 0x10) ? x !== -1 : x !== 0;
      if (more) c |= 0x20;
      s += String.fromCharCode(c + 48);
    }
  }
  return s;
}

/** {size: [h, w], counts} -> row-major Uint8Array mask (1 = inside). */
export function decode(rle) {
  const h = rle.size[0], w = rle.size[1];
  const counts = typeof rle.counts === "string" ? countsFromString(rle.counts) : rle.counts;
  const mask = new Uint8Array(w * h);
  let pos = 0, value = 0;
  for (const run of counts) {
    if (value) {
      for (let i = pos; i < pos + run; i++) {
        const x = (i / h) | 0, y = i - x * h;  // column-major index -> (x, y)
        mask[y * w + x] = 1;
      }
    }
    pos += run;
    value ^= 1;
  }
  return mask;
}

/** Row-major mask (w x h) -> {size: [h, w], counts: compressed string}. */
export function encode(mask, w, h) {
  const counts = [];
  let run = 0, value = 0;
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      const v = mask[y * w + x];
      if (v !== value) { counts.push(run); run = 0; value = v; }
      run++;
    }
  }
  counts.push(run);
  return { size: [h, w], counts: countsToString(counts) };
}
