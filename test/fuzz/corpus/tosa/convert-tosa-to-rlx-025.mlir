func.func @partial_dynamic_slice(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %start = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-error @+1 {{'tosa.slice' op expects dynamic dim 0 to be sliced whole (start 0, size -1)}}
  %0 = tosa.slice %x, %start, %size : (tensor<?x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
