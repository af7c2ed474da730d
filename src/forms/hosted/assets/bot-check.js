// The proof of work of a hosted form page with a bot defence: finds a number n such that SHA-256 of
// "<check token>:<n>" starts with the page's number of zero bits, and puts it in the form's _sp_pow field. It runs in
// small slices so the page stays responsive; a submit before it is done waits for it and then goes on. Without this
// script the post carries no solution and the server holds it to the check token's time and the honeypot.
(function () {
  'use strict';
  var form = document.querySelector('form[data-sp-pow-bits]');
  if (!form) return;
  var bits = Number(form.getAttribute('data-sp-pow-bits'));
  var check = form.querySelector('input[name=_sp_check]');
  var answer = form.querySelector('input[name=_sp_pow]');
  var status = document.getElementById('sp-check-status');
  if (!check || !answer || !(bits > 0)) return;
  var K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ];
  var w = new Int32Array(64);

  // One SHA-256 compression of the 64 bytes of `block` from `at` into the state `h`.
  function compress(h, block, at) {
    var i;
    for (i = 0; i < 16; i++)
      w[i] =
        (block[at + 4 * i] << 24) |
        (block[at + 4 * i + 1] << 16) |
        (block[at + 4 * i + 2] << 8) |
        block[at + 4 * i + 3];
    for (i = 16; i < 64; i++) {
      var x = w[i - 15];
      var y = w[i - 2];
      var s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      var s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    var a = h[0],
      b = h[1],
      c = h[2],
      d = h[3],
      e = h[4],
      f = h[5],
      g = h[6],
      k = h[7];
    for (i = 0; i < 64; i++) {
      var t1 =
        (k +
          (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
          ((e & f) ^ (~e & g)) +
          K[i] +
          w[i]) |
        0;
      var t2 =
        ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
          ((a & b) ^ (a & c) ^ (b & c))) |
        0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] + a) | 0;
    h[1] = (h[1] + b) | 0;
    h[2] = (h[2] + c) | 0;
    h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0;
    h[5] = (h[5] + f) | 0;
    h[6] = (h[6] + g) | 0;
    h[7] = (h[7] + k) | 0;
  }

  // The state after the prefix's whole blocks is worked out once; each try hashes only the tail.
  var prefix = check.value + ':';
  var bytes = new Uint8Array(prefix.length);
  for (var i = 0; i < prefix.length; i++) bytes[i] = prefix.charCodeAt(i) & 0xff;
  var whole = bytes.length - (bytes.length % 64);
  var mid = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  for (var at = 0; at < whole; at += 64) compress(mid, bytes, at);
  var rest = bytes.subarray(whole);
  var tail = new Uint8Array(192);
  var h = new Int32Array(8);

  function zeroBits(n) {
    var digits = String(n);
    tail.fill(0);
    tail.set(rest);
    for (var j = 0; j < digits.length; j++) tail[rest.length + j] = digits.charCodeAt(j);
    var used = rest.length + digits.length;
    tail[used] = 0x80;
    var size = used + 9 <= 64 ? 64 : 128;
    var length = (bytes.length + digits.length) * 8;
    tail[size - 4] = length >>> 24;
    tail[size - 3] = (length >>> 16) & 0xff;
    tail[size - 2] = (length >>> 8) & 0xff;
    tail[size - 1] = length & 0xff;
    h.set(mid);
    compress(h, tail, 0);
    if (size === 128) compress(h, tail, 64);
    var zeros = 0;
    for (var k = 0; k < 8; k++) {
      if (h[k] !== 0) return zeros + Math.clz32(h[k]);
      zeros += 32;
    }
    return zeros;
  }

  var n = 0;
  var solved = false;
  var waiting = false;
  function work() {
    for (var end = n + 20000; n < end; n++) {
      if (zeroBits(n) >= bits) {
        answer.value = String(n);
        solved = true;
        form.setAttribute('data-sp-solved', '');
        if (waiting) form.submit();
        return;
      }
    }
    setTimeout(work, 0);
  }
  form.addEventListener('submit', function (event) {
    if (solved) return;
    event.preventDefault();
    waiting = true;
    if (status) status.textContent = status.getAttribute('data-waiting');
  });
  setTimeout(work, 0);
})();
