// RUN: rlx-opt %s -split-input-file -rlx-cpu-vectorize-matmul -verify-diagnostics

// A block-scaled product whose body is not `c + a * decode(code, scale)`
// is refused rather than expanded wrongly.
#ea = affine_map<(m, n, k) -> (m, k)>
#ec = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#es = affine_map<(m, n, k) -> (n floordiv 32, k floordiv 32, n mod 32)>
#eo = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_block_scaled_foreign_body(%a: memref<16x96xf32>, %codes: memref<2x96x32xf8E4M3FN>, %scales: memref<2x3x32xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{a block-scaled prepacked matmul whose body is not `c + a * decode(code, scale)`}}
  linalg.generic {indexing_maps = [#ea, #ec, #es, #eo], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %codes, %scales : memref<16x96xf32>, memref<2x96x32xf8E4M3FN>, memref<2x3x32xf32>) outs(%c : memref<16x64xf32>) attrs = {rlx.packed_rhs, rlx.scale_block_size = 32 : i64} {
  ^bb0(%x: f32, %q: f8E4M3FN, %s: f32, %acc: f32):
    %d = arith.extf %q : f8E4M3FN to f32
    %w = arith.mulf %d, %x : f32
    %p = arith.mulf %s, %w : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}
