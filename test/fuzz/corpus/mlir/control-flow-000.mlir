func.func private @step(%w: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %a = rlx.mul %w, %h : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %s = rlx.sum %a {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4xf32>
  %b = rlx.add %s, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = rlx.tanh %b : tensor<4xf32>
  return %c, %c : tensor<4xf32>, tensor<4xf32>
}

func.func @scan(%w: tensor<4x4xf32>, %h: tensor<4xf32>, %xs: tensor<?x4xf32>)
    -> (tensor<4xf32>, tensor<?x4xf32>) {
  %hn, %ys = rlx.scan @step consts(%w) init(%h) xs(%xs)
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<?x4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>)
  %hr, %yr = rlx.scan @step consts(%w) init(%h) xs(%xs) {reverse = true, unroll = 4 : i64}
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<?x4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>)
  return %hn, %ys : tensor<4xf32>, tensor<?x4xf32>
}

func.func private @double(%h: tensor<3xf32>) -> tensor<3xf32> {
  %d = rlx.add %h, %h : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}

func.func @scan_length(%h: tensor<3xf32>) -> tensor<3xf32> {
  %r = rlx.scan @double init(%h) {length = 5 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  %c = rlx.scan @double init(%h) {length = 5 : i64, checkpoint_every = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func private @below(%limit: tensor<f32>, %x: tensor<f32>) -> tensor<i1> {
  %c = rlx.compare "lt", %x, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %c : tensor<i1>
}
func.func private @grow(%limit: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %y = rlx.add %x, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

func.func @while(%limit: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %r = rlx.while @below, @grow consts(%limit) init(%x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

func.func private @neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.neg %x : tensor<3xf32>
  return %y : tensor<3xf32>
}

func.func @switch(%i: tensor<i32>, %p: tensor<i1>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = rlx.switch %i [@neg, @double](%x) : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
  %b = rlx.switch %p [@neg, @double](%x) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %a, %b : tensor<3xf32>, tensor<3xf32>
}
