;; Where a JSON string body ends, checked as JSON.parse would check it: the WebAssembly half of
;; string-body.ts, which holds the same loop in TypeScript (the definition and the fallback) and says
;; why this exists. Built into string-body.wasm.ts by `node scripts/build-wasm.mjs`; a test fails when
;; the two differ.
;;
;; stringBodyEnd(from, end): the bytes of one line are in memory at [0, end). From `from` (just inside
;; a string body), returns the index of the closing quote, or -1 when the body is not valid JSON
;; before it (a control byte, a malformed escape) or when `end` comes first.
(module
  (memory (export "memory") 1)

  ;; 0-9, A-F, a-f.
  (func $isHexDigit (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  ;; The one-character escapes: " \ / b f n r t.
  (func $isSimpleEscape (param $c i32) (result i32)
    (i32.or
      (i32.or
        (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c)))
        (i32.or (i32.eq (local.get $c) (i32.const 0x2f)) (i32.eq (local.get $c) (i32.const 0x62))))
      (i32.or
        (i32.or (i32.eq (local.get $c) (i32.const 0x66)) (i32.eq (local.get $c) (i32.const 0x6e)))
        (i32.or (i32.eq (local.get $c) (i32.const 0x72)) (i32.eq (local.get $c) (i32.const 0x74))))))

  (func (export "stringBodyEnd") (param $i i32) (param $end i32) (result i32)
    (local $c i32) (local $special i32) (local $block v128)
    (block $invalid
      (loop $next
        ;; Sixteen bytes at a time while they fit: skip a block with no quote, backslash or control
        ;; byte, else move to the first such byte (lane k is the byte at i + k).
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
                (br $next)))
            (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $special)))))
          (else
            (br_if $invalid (i32.ge_u (local.get $i) (local.get $end)))))
        ;; One byte at i < end: the quote ends the body, an escape is checked and skipped whole.
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then (return (local.get $i))))
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
                (br $next)))
            (br_if $invalid (i32.eqz (call $isSimpleEscape (local.get $c))))
            (local.set $i (i32.add (local.get $i) (i32.const 2)))
            (br $next)))
        (br_if $invalid (i32.lt_u (local.get $c) (i32.const 0x20)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const -1)))
