// RUN: rlx-opt %s -split-input-file -convert-rlx-to-linalg | FileCheck %s --check-prefix=CPU
// RUN: rlx-opt %s -split-input-file -convert-rlx-to-linalg=tensor-core-products | FileCheck %s --check-prefix=TC

// 16-bit matmuls that rlx-accumulate-in-f32 widened. By default only a
// 2-D bf16 product reads its bf16 operands (the CPU's bf16 dot products);
// with tensor-core-products (CUDA's tensor cores) f16 and batched products
// read theirs too. The f32 copies are then unread.
// CPU-LABEL: func @f16_2d
// CPU: %[[A:.+]] = linalg.generic {{.+}} ins(%arg0 : tensor<?x24xf16>) outs(%{{.+}} : tensor<?x24xf32>)
// CPU: linalg.matmul ins(%[[A]], %{{.+}} : tensor<?x24xf32>, tensor<24x40xf32>)
// TC-LABEL: func @f16_2d
// TC: linalg.matmul ins(%arg0, %arg1 : tensor<?x24xf16>, tensor<24x40xf16>) outs(%{{.+}} : tensor<?x40xf32>)
func.func @f16_2d(%a: tensor<?x24xf16>, %b: tensor<24x40xf16>) -> tensor<?x40xf32> {
  %a32 = rlx.cast %a : tensor<?x24xf16> -> tensor<?x24xf32>
  %b32 = rlx.cast %b : tensor<24x40xf16> -> tensor<24x40xf32>
  %c = rlx.matmul %a32, %b32 : (tensor<?x24xf32>, tensor<24x40xf32>) -> tensor<?x40xf32>
  return %c : tensor<?x40xf32>
}

// -----

// CPU-LABEL: func @bf16_batched
// CPU: linalg.batch_matmul ins(%{{.+}}, %{{.+}} : tensor<?x8x24xf32>, tensor<?x24x40xf32>)
// TC-LABEL: func @bf16_batched
// TC: linalg.batch_matmul ins(%arg0, %arg1 : tensor<?x8x24xbf16>, tensor<?x24x40xbf16>) outs(%{{.+}} : tensor<?x8x40xf32>)
func.func @bf16_batched(%a: tensor<?x8x24xbf16>, %b: tensor<?x24x40xbf16>) -> tensor<?x8x40xf32> {
  %a32 = rlx.cast %a : tensor<?x8x24xbf16> -> tensor<?x8x24xf32>
  %b32 = rlx.cast %b : tensor<?x24x40xbf16> -> tensor<?x24x40xf32>
  %c = rlx.matmul %a32, %b32 : (tensor<?x8x24xf32>, tensor<?x24x40xf32>) -> tensor<?x8x40xf32>
  return %c : tensor<?x8x40xf32>
}

// -----

// Attention's [B, H, M, K] x [B, H, K, N]: the batch dims collapse, the
// 16-bit operands with them.
// TC-LABEL: func @f16_heads
// TC: %[[A:.+]] = tensor.collapse_shape %arg0 {{.+}} : tensor<2x3x8x16xf16> into tensor<6x8x16xf16>
// TC: %[[B:.+]] = tensor.collapse_shape %arg1 {{.+}} : tensor<2x3x16x8xf16> into tensor<6x16x8xf16>
// TC: linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<6x8x16xf16>, tensor<6x16x8xf16>) outs(%{{.+}} : tensor<6x8x8xf32>)
func.func @f16_heads(%a: tensor<2x3x8x16xf16>, %b: tensor<2x3x16x8xf16>) -> tensor<2x3x8x8xf32> {
  %a32 = rlx.cast %a : tensor<2x3x8x16xf16> -> tensor<2x3x8x16xf32>
  %b32 = rlx.cast %b : tensor<2x3x16x8xf16> -> tensor<2x3x16x8xf32>
  %c = rlx.matmul %a32, %b32 : (tensor<2x3x8x16xf32>, tensor<2x3x16x8xf32>) -> tensor<2x3x8x8xf32>
  return %c : tensor<2x3x8x8xf32>
}

// -----

// Operands of two 16-bit types stay f32 copies.
// TC-LABEL: func @mixed
// TC: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<8x4xf32>)
func.func @mixed(%a: tensor<4x8xf16>, %b: tensor<8x4xbf16>) -> tensor<4x4xf32> {
  %a32 = rlx.cast %a : tensor<4x8xf16> -> tensor<4x8xf32>
  %b32 = rlx.cast %b : tensor<8x4xbf16> -> tensor<8x4xf32>
  %c = rlx.matmul %a32, %b32 : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}
