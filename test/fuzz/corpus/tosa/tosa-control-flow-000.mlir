// TOSA control flow compiles and runs: tosa.while_loop and tosa.cond_if are
// imported as rlx.while and rlx.switch over outlined bodies. Expected values
// by hand at x = [-3, -2, -1, 0, 1, 2, 3].
//
// doubled: v = |x| + 1 = [4, 3, 2, 1, 2, 3, 4] (sum 19) doubled while its
// sum is below 100: 19, 38, 76, 152, three steps.
// taken: x[0] < 0, so -x + 10; not_taken: x[6] >= 0, so |x|.
// nested: four steps of v = n >= 2 ? v * 2 : v + 1 from x: (x + 2) * 4.

// The import leaves only rlx: the bodies are private functions.
// IMPORT: rlx.while @main__while_cond, @main__while_body consts(
// IMPORT: rlx.switch
// IMPORT: func.func private @main__cond_if_then
// IMPORT-NOT: tosa.

// Through a cond_if, --value-and-grad differentiates the branch taken. The
// weight w is written by @make_w (w = x), then loss = sum(w * x) when
// w[0] < 0 (taken: value 28, grad x) and loss_else = sum(w * w) when
// w[6] < 0 does not hold (value 28, grad 2w).
// GRAD: value: f32[1] = [28]
// GRAD-NEXT: grad.w: f32[7] = [-3, -2, -1, 0, 1, 2, 3]
// GRAD-ELSE: value: f32[1] = [28]
// GRAD-ELSE-NEXT: grad.w: f32[7] = [-6, -4, -2, 0, 2, 4, 6]

ml_program.global private @w(#ml_program.extern : tensor<7xf32>) : tensor<7xf32>

func.func @main(%x: tensor<7xf32> {rlx.name = "x"})
    -> (tensor<7xf32> {rlx.name = "doubled"}, tensor<i32> {rlx.name = "steps"},
        tensor<7xf32> {rlx.name = "taken"}, tensor<7xf32> {rlx.name = "not_taken"},
        tensor<7xf32> {rlx.name = "nested"}) {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %one = "tosa.const"() {values = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %zero = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %limit = "tosa.const"() {values = dense<100.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %ten = "tosa.const"() {values = dense<10.0> : tensor<7xf32>} : () -> tensor<7xf32>
  %i0 = "tosa.const"() {values = dense<0> : tensor<i32>} : () -> tensor<i32>
  %i1 = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
  %i2 = "tosa.const"() {values = dense<2> : tensor<i32>} : () -> tensor<i32>
  %i4 = "tosa.const"() {values = dense<4> : tensor<i32>} : () -> tensor<i32>

  // A computed value the loop body uses from outside: a const of rlx.while.
  %factor = tosa.add %one, %one : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %abs = tosa.abs %x : (tensor<7xf32>) -> tensor<7xf32>
  %v0 = tosa.add %abs, %one : (tensor<7xf32>, tensor<1xf32>) -> tensor<7xf32>
  %doubled:2 = tosa.while_loop (%v = %v0, %n = %i0) : (tensor<7xf32>, tensor<i32>) -> (tensor<7xf32>, tensor<i32>) {
    %sum = tosa.reduce_sum %v {axis = 0 : i32} : (tensor<7xf32>) -> tensor<1xf32>
    %below = tosa.greater %limit, %sum : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>
    tosa.yield %below : tensor<1xi1>
  } do {
  ^bb0(%v: tensor<7xf32>, %n: tensor<i32>):
    %twice = tosa.mul %v, %factor, %shift : (tensor<7xf32>, tensor<1xf32>, tensor<1xi8>) -> tensor<7xf32>
    %next = tosa.add %n, %i1 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %twice, %next : tensor<7xf32>, tensor<i32>
  }

  %start0 = tosa.const_shape {values = dense<[0]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %start6 = tosa.const_shape {values = dense<[6]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %size1 = tosa.const_shape {values = dense<[1]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %first = tosa.slice %x, %start0, %size1 : (tensor<7xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<1xf32>
  %last = tosa.slice %x, %start6, %size1 : (tensor<7xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<1xf32>
  %first_negative = tosa.greater %zero, %first : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>
  %last_negative = tosa.greater %zero, %last : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>
  %taken = tosa.cond_if %first_negative (%a = %x) : tensor<1xi1> (tensor<7xf32>) -> tensor<7xf32> {
  ^bb0(%a: tensor<7xf32>):
    %neg = tosa.negate %a, %zp, %zp : (tensor<7xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<7xf32>
    %r = tosa.add %neg, %ten : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
    tosa.yield %r : tensor<7xf32>
  } else {
  ^bb0(%a: tensor<7xf32>):
    %r = tosa.abs %a : (tensor<7xf32>) -> tensor<7xf32>
    tosa.yield %r : tensor<7xf32>
  }
  %not_taken = tosa.cond_if %last_negative (%a = %x) : tensor<1xi1> (tensor<7xf32>) -> tensor<7xf32> {
  ^bb0(%a: tensor<7xf32>):
    %neg = tosa.negate %a, %zp, %zp : (tensor<7xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<7xf32>
    %r = tosa.add %neg, %ten : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
    tosa.yield %r : tensor<7xf32>
  } else {
  ^bb0(%a: tensor<7xf32>):
    %r = tosa.abs %a : (tensor<7xf32>) -> tensor<7xf32>
    tosa.yield %r : tensor<7xf32>
  }

  // A cond_if inside a while body; the branch uses %factor from outside both.
  %nested:2 = tosa.while_loop (%v = %x, %n = %i0) : (tensor<7xf32>, tensor<i32>) -> (tensor<7xf32>, tensor<i32>) {
    %more = tosa.greater %i4, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %more : tensor<i1>
  } do {
  ^bb0(%v: tensor<7xf32>, %n: tensor<i32>):
    %late = tosa.greater_equal %n, %i2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %stepped = tosa.cond_if %late (%a = %v) : tensor<i1> (tensor<7xf32>) -> tensor<7xf32> {
    ^bb0(%a: tensor<7xf32>):
      %r = tosa.mul %a, %factor, %shift : (tensor<7xf32>, tensor<1xf32>, tensor<1xi8>) -> tensor<7xf32>
      tosa.yield %r : tensor<7xf32>
    } else {
    ^bb0(%a: tensor<7xf32>):
      %r = tosa.add %a, %one : (tensor<7xf32>, tensor<1xf32>) -> tensor<7xf32>
      tosa.yield %r : tensor<7xf32>
    }
    %next = tosa.add %n, %i1 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %stepped, %next : tensor<7xf32>, tensor<i32>
  }
  return %doubled#0, %doubled#1, %taken, %not_taken, %nested#0 : tensor<7xf32>, tensor<i32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
}

// Writes the weight file: w = x.
func.func @make_w(%x: tensor<7xf32> {rlx.name = "x"}) -> (tensor<7xf32> {rlx.name = "w"}) {
  %w = tosa.abs %x : (tensor<7xf32>) -> tensor<7xf32>
  %s = tosa.sub %x, %w : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
  %r = tosa.add %s, %w : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @loss(%x: tensor<7xf32> {rlx.name = "x"}) -> tensor<1xf32> {
  %w = ml_program.global_load_const @w : tensor<7xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %zero = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %start = tosa.const_shape {values = dense<[0]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %size = tosa.const_shape {values = dense<[1]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %first = tosa.slice %w, %start, %size : (tensor<7xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<1xf32>
  %negative = tosa.greater %zero, %first : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>
  %l = tosa.cond_if %negative (%a = %w) : tensor<1xi1> (tensor<7xf32>) -> tensor<1xf32> {
  ^bb0(%a: tensor<7xf32>):
    %p = tosa.mul %a, %x, %shift : (tensor<7xf32>, tensor<7xf32>, tensor<1xi8>) -> tensor<7xf32>
    %s = tosa.reduce_sum %p {axis = 0 : i32} : (tensor<7xf32>) -> tensor<1xf32>
    tosa.yield %s : tensor<1xf32>
  } else {
  ^bb0(%a: tensor<7xf32>):
    %p = tosa.mul %a, %a, %shift : (tensor<7xf32>, tensor<7xf32>, tensor<1xi8>) -> tensor<7xf32>
    %s = tosa.reduce_sum %p {axis = 0 : i32} : (tensor<7xf32>) -> tensor<1xf32>
    tosa.yield %s : tensor<1xf32>
  }
  return %l : tensor<1xf32>
}

func.func @loss_else(%x: tensor<7xf32> {rlx.name = "x"}) -> tensor<1xf32> {
  %w = ml_program.global_load_const @w : tensor<7xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %zero = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %start = tosa.const_shape {values = dense<[6]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %size = tosa.const_shape {values = dense<[1]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %last = tosa.slice %w, %start, %size : (tensor<7xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<1xf32>
  %negative = tosa.greater %zero, %last : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>
  %l = tosa.cond_if %negative (%a = %w) : tensor<1xi1> (tensor<7xf32>) -> tensor<1xf32> {
  ^bb0(%a: tensor<7xf32>):
    %p = tosa.mul %a, %x, %shift : (tensor<7xf32>, tensor<7xf32>, tensor<1xi8>) -> tensor<7xf32>
    %s = tosa.reduce_sum %p {axis = 0 : i32} : (tensor<7xf32>) -> tensor<1xf32>
    tosa.yield %s : tensor<1xf32>
  } else {
  ^bb0(%a: tensor<7xf32>):
    %p = tosa.mul %a, %a, %shift : (tensor<7xf32>, tensor<7xf32>, tensor<1xi8>) -> tensor<7xf32>
    %s = tosa.reduce_sum %p {axis = 0 : i32} : (tensor<7xf32>) -> tensor<1xf32>
    tosa.yield %s : tensor<1xf32>
  }
  return %l : tensor<1xf32>
}
