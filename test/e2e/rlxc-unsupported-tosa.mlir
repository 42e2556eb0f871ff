// An unsupported TOSA op is named, at its location.
// RUN: not rlxc %s -o %t.so 2>&1 | FileCheck %s
// CHECK: rlxc-unsupported-tosa.mlir:[[@LINE+2]]:12: error: 'tosa.fft2d' op is not supported by the TOSA import
func.func @f(%re: tensor<1x4x4xf32>, %im: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %0, %1 = tosa.fft2d %re, %im {inverse = false} : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x4xf32>)
  return %0 : tensor<1x4x4xf32>
}
