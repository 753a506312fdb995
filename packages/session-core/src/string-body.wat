;; One JSON string of a line, scanned as the skeleton scan needs it: the WebAssembly half of
;; string-body.ts, which holds the same scan in TypeScript (the definition and the fallback) and says
;; why this exists. Built into string-body.wasm.ts by `node scripts/build-wasm.mjs`; a test fails when
;; the two differ.
;;
;; scanString(from, end, keep): the bytes of one line are in memory at [0, end), and `from` is the
;; first byte of a string's body. The body's UTF-16 units are counted (counted low: a 4-byte sequence
;; and an escape are one unit each) up to the first safe point (a byte that starts a unit) where `keep`
;; units are behind. Without such a point it returns the index of the closing quote, the body left to
;; JSON.parse. With one, that point is the cut (the global cutAt), the rest of the body is checked as
;; JSON.parse would check it (no control byte, well-formed escapes) and it returns -2 - the index of
;; the closing quote. -1: the line ends first, or the checked rest is not valid JSON.
(module
  (memory (export "memory") 1)
  (global $cutAt (export "cutAt") (mut i32) (i32.const -1))

  ;; 0-9, A-F, a-f.
  (func $isHexDigit (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  (func (export "scanString") (param $i i32) (param $end i32) (param $keep i32) (result i32)
    (local $c i32) (local $units i32) (local $block v128) (local $special i32) (local $starts i32)
    (local $k i32) (local $before i32)
    (block $invalid
      (block $cut
        (loop $head
          ;; Sixteen bytes at a time while they fit: count the unit starts (bytes other than 10xxxxxx)
          ;; before the first quote or backslash, and skip them unless the cut may fall among them.
          (if (i32.le_u (i32.add (local.get $i) (i32.const 16)) (local.get $end))
            (then
              (local.set $block (v128.load (local.get $i)))
              (local.set $special
                (i8x16.bitmask
                  (v128.or
                    (i8x16.eq (local.get $block) (i8x16.splat (i32.const 0x22)))
                    (i8x16.eq (local.get $block) (i8x16.splat (i32.const 0x5c))))))
              (local.set $starts
                (i32.xor
                  (i8x16.bitmask
                    (i8x16.eq
                      (v128.and (local.get $block) (i8x16.splat (i32.const 0xc0)))
                      (i8x16.splat (i32.const 0x80))))
                  (i32.const 0xffff)))
              ;; k: the first special lane, 16 when there is none.
              (local.set $k (i32.ctz (i32.or (local.get $special) (i32.const 0x10000))))
              (local.set $before
                (i32.popcnt
                  (i32.and
                    (local.get $starts)
                    (i32.sub (i32.shl (i32.const 1) (local.get $k)) (i32.const 1)))))
              ;; A start at lane j is the cut when units + (starts before j) >= keep, so none before k is
              ;; when units + before <= keep.
              (if (i32.le_u (i32.add (local.get $units) (local.get $before)) (local.get $keep))
                (then
                  (local.set $units (i32.add (local.get $units) (local.get $before)))
                  (local.set $i (i32.add (local.get $i) (local.get $k)))
                  (br_if $head (i32.eq (local.get $k) (i32.const 16))))))
            (else
              (br_if $invalid (i32.ge_u (local.get $i) (local.get $end)))))
          ;; One byte at i < end.
          (local.set $c (i32.load8_u (local.get $i)))
          (if (i32.eq (local.get $c) (i32.const 0x22))
            (then
              (global.set $cutAt (i32.const -1))
              (return (local.get $i))))
          (if (i32.ne (i32.and (local.get $c) (i32.const 0xc0)) (i32.const 0x80))
            (then
              (br_if $cut (i32.ge_u (local.get $units) (local.get $keep)))
              (local.set $units (i32.add (local.get $units) (i32.const 1)))
              (if (i32.eq (local.get $c) (i32.const 0x5c))
                (then
                  ;; A kept escape is skipped whole, unchecked: JSON.parse checks what is kept.
                  (br_if $invalid (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
                  (local.set $i
                    (i32.add
                      (local.get $i)
                      (select (i32.const 6) (i32.const 2)
                        (i32.eq (i32.load8_u offset=1 (local.get $i)) (i32.const 0x75)))))
                  (br $head)))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $head)))
      ;; The cut: check the rest up to the closing quote.
      (global.set $cutAt (local.get $i))
      (loop $tail
        ;; Sixteen bytes at a time: skip a block with no quote, backslash or control byte, else move
        ;; to the first such byte.
        (if (i32.le_u (i32.add (local.get $i) (i32.const 16)) (local.get $end))
          (then
            (local.set $block (v128.load (local.get $i)))
            (local.set $special
              (i8x16.bitmask
                (v128.or
                  (v128.or
                    (i8x16.eq (local.get $block) (i8x16.splat (i32.const 0x22)))
                    (i8x16.eq (local.get $block) (i8x16.splat (i32.const 0x5c))))
                  (i8x16.lt_u (local.get $block) (i8x16.splat (i32.const 0x20))))))
            (if (i32.eqz (local.get $special))
              (then
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (br $tail)))
            (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $special)))))
          (else
            (br_if $invalid (i32.ge_u (local.get $i) (local.get $end)))))
        ;; One byte at i < end: the quote ends the body, an escape is checked and skipped whole.
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then (return (i32.sub (i32.const -2) (local.get $i)))))
        (if (i32.eq (local.get $c) (i32.const 0x5c))
          (then
            (br_if $invalid (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
            (local.set $c (i32.load8_u offset=1 (local.get $i)))
            (if (i32.eq (local.get $c) (i32.const 0x75))
              (then
                (br_if $invalid (i32.ge_u (i32.add (local.get $i) (i32.const 5)) (local.get $end)))
                (br_if $invalid (i32.eqz (call $isHexDigit (i32.load8_u offset=2 (local.get $i)))))
                (br_if $invalid (i32.eqz (call $isHexDigit (i32.load8_u offset=3 (local.get $i)))))
                (br_if $invalid (i32.eqz (call $isHexDigit (i32.load8_u offset=4 (local.get $i)))))
                (br_if $invalid (i32.eqz (call $isHexDigit (i32.load8_u offset=5 (local.get $i)))))
                (local.set $i (i32.add (local.get $i) (i32.const 6)))
                (br $tail)))
            ;; The one-character escapes: " \ / b f n r t.
            (br_if $invalid
              (i32.eqz
                (i32.or
                  (i32.or
                    (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c)))
                    (i32.or (i32.eq (local.get $c) (i32.const 0x2f)) (i32.eq (local.get $c) (i32.const 0x62))))
                  (i32.or
                    (i32.or (i32.eq (local.get $c) (i32.const 0x66)) (i32.eq (local.get $c) (i32.const 0x6e)))
                    (i32.or (i32.eq (local.get $c) (i32.const 0x72)) (i32.eq (local.get $c) (i32.const 0x74)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 2)))
            (br $tail)))
        (br_if $invalid (i32.lt_u (local.get $c) (i32.const 0x20)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (global.set $cutAt (i32.const -1))
    (i32.const -1)))
