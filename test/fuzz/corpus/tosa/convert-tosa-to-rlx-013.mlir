func.func @pooling(%x: tensor<1x8x8x3xf32>) -> tensor<1x3x3x3xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = tosa.avg_pool2d %0, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x3xf32>
  return %1 : tensor<1x3x3x3xf32>
}
