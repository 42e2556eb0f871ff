// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @unroll(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects unroll >= 1, got 0}}
  %r = rlx.scan @id init(%h) {length = 2 : i64, unroll = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @negative_length(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects a non-negative length, got -1}}
  %r = rlx.scan @id init(%h) {length = -1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @no_length(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects a length attribute when it scans no xs}}
  %r = rlx.scan @id init(%h) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @scalar_xs(%h: tensor<3xf32>, %x: tensor<f32>) {
  // expected-error @+1 {{'rlx.scan' op expects xs 0 to have a leading dim to scan over, got 'tensor<f32>'}}
  %r = rlx.scan @f init(%h) xs(%x) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>, %y: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @lengths_differ(%h: tensor<3xf32>, %x: tensor<5xf32>, %y: tensor<6xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects every xs to have 5 steps (the first xs), xs 1 has 6}}
  %r = rlx.scan @f init(%h) xs(%x, %y) : (tensor<3xf32>, tensor<5xf32>, tensor<6xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @length_attr_differs(%h: tensor<3xf32>, %x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects every xs to have 4 steps (the length), xs 0 has 5}}
  %r = rlx.scan @f init(%h) xs(%x) {length = 4 : i64} : (tensor<3xf32>, tensor<5xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>, %k: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %h, %k : tensor<3xf32>, tensor<3xf32>
}
func.func @too_few_results(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects a result per init, got 1 results for 2 inits}}
  %r = rlx.scan @f init(%h, %h) {length = 2 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @carry_result(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects result 0 (the final carry) to have the init's type 'tensor<3xf32>', got 'tensor<3xf64>'}}
  %r = rlx.scan @id init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %h, %h : tensor<3xf32>, tensor<3xf32>
}
func.func @stacked_length(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects stacked output 0 to have a leading dim of 2 (the number of steps), got 'tensor<3x3xf32>'}}
  %r:2 = rlx.scan @f init(%h) {length = 2 : i64} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @missing_body(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects body 'nowhere' to name a function with a body}}
  %r = rlx.scan @nowhere init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @body_arity(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects body @f to take 1 arguments, it takes 2}}
  %r = rlx.scan @f init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>, %x: tensor<2xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @slice_type(%h: tensor<3xf32>, %x: tensor<5x4xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects argument 1 of body @f to be 'tensor<4xf32>', got 'tensor<2xf32>'}}
  %r = rlx.scan @f init(%h) xs(%x) : (tensor<3xf32>, tensor<5x4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %h, %h : tensor<3xf32>, tensor<3xf32>
}
func.func @body_result_count(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects body @f to return 1 values (the carry, then one slice per stacked output), it returns 2}}
  %r = rlx.scan @f init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @widen(%h: tensor<3xf32>) -> tensor<3xf64> {
  %w = rlx.cast %h : tensor<3xf32> -> tensor<3xf64>
  return %w : tensor<3xf64>
}
func.func @carry_changed(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects result 0 of body @widen to be 'tensor<3xf32>' (the carry, then one slice per stacked output), got 'tensor<3xf64>'}}
  %r = rlx.scan @widen init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @c(%x: tensor<f32>) -> tensor<i1> {
  %t = rlx.constant dense<true> : tensor<i1>
  return %t : tensor<i1>
}
func.func @while_results(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.while' op expects its results to have the init's types}}
  %r = rlx.while @c, @c init(%x) : (tensor<f32>) -> tensor<f64>
  return
}

// -----

func.func private @c(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @while_cond_type(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.while' op expects result 0 of cond @c to be 'tensor<i1>' (the condition, a tensor<i1>), got 'tensor<f32>'}}
  %r = rlx.while @c, @c init(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @c(%x: tensor<f32>) -> tensor<i1> {
  %t = rlx.constant dense<true> : tensor<i1>
  return %t : tensor<i1>
}
func.func private @b(%x: tensor<f32>) -> tensor<f64> {
  %w = rlx.cast %x : tensor<f32> -> tensor<f64>
  return %w : tensor<f64>
}
func.func @while_body_type(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.while' op expects result 0 of body @b to be 'tensor<f32>' (the next carry), got 'tensor<f64>'}}
  %r = rlx.while @c, @b init(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @switch_rank(%i: tensor<2xi32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.switch' op expects a rank-0 index, got 'tensor<2xi32>'}}
  %r = rlx.switch %i [@id](%x) : (tensor<2xi32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @switch_empty(%i: tensor<i32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.switch' op expects at least one branch}}
  %r = rlx.switch %i [](%x) : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @switch_bool(%p: tensor<i1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.switch' op expects two branches for an i1 index, got 3}}
  %r = rlx.switch %p [@id, @id, @id](%x) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @other(%x: tensor<3xf32>) -> tensor<3xf64> {
  %w = rlx.cast %x : tensor<3xf32> -> tensor<3xf64>
  return %w : tensor<3xf64>
}
func.func @switch_branch_differs(%i: tensor<i32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.switch' op expects result 0 of branch 1 @other to be 'tensor<3xf32>' (the switch's results), got 'tensor<3xf64>'}}
  %r = rlx.switch %i [@id, @other](%x) : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @checkpoint_every(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects checkpoint_every >= 1, got 0}}
  %r = rlx.scan @id init(%h) {length = 4 : i64, checkpoint_every = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @checkpoint_dynamic(%h: tensor<3xf32>, %xs: tensor<?xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects a static number of steps with checkpoint_every (give the length attribute)}}
  %r = rlx.scan @f init(%h) xs(%xs) {checkpoint_every = 2 : i64} : (tensor<3xf32>, tensor<?xf32>) -> tensor<3xf32>
  return
}
