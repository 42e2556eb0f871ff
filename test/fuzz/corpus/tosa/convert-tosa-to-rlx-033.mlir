// An op the import cannot convert is reported inside the outlined branch.
func.func @unsupported_in_branch(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{'tosa.erf' op is not supported by the TOSA import (convert-tosa-to-rlx)}}
    %e = tosa.erf %a : (tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %e : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    tosa.yield %a : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}
