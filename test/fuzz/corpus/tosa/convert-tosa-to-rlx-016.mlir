func.func @unsupported_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tosa.erf' op is not supported by the TOSA import (convert-tosa-to-rlx)}}
  %0 = tosa.erf %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
