func.func @unsupported_fft(%re: tensor<1x4x4xf32>, %im: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  // expected-error @+1 {{'tosa.fft2d' op is not supported by the TOSA import (convert-tosa-to-rlx)}}
  %0, %1 = tosa.fft2d %re, %im {inverse = false} : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x4xf32>)
  return %0 : tensor<1x4x4xf32>
}
