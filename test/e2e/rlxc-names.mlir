// Names that would make an artifact uncallable are refused at compile time
// with a location, and no artifact is written: two inputs or outputs of one
// name (a call binds them by name), a NUL inside a name (the C API takes C
// strings), bytes that are not UTF-8 (the manifest is JSON).
// RUN: rm -rf %t && split-file %s %t
// RUN: not rlxc %t/inputs.mlir -o %t/inputs.so 2>&1 | FileCheck %s --check-prefix=INPUTS
// RUN: not test -e %t/inputs.so
// INPUTS: inputs.mlir:2:14: error: 'f' expects distinct input names, inputs 0 and 1 are both named "x"
// RUN: not rlxc %t/outputs.mlir -o %t/outputs.so 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: outputs.mlir:1:1: error: 'func.func' op expects distinct output names, outputs 0 and 1 are both named "y"
// RUN: not rlxc %t/nul.mlir -o %t/nul.so 2>&1 | FileCheck %s --check-prefix=NUL
// NUL: nul.mlir:1:1: error: 'func.func' op expects names without NUL characters, output 0 is named "y\00"
// RUN: not rlxc %t/utf8.mlir -o %t/utf8.so 2>&1 | FileCheck %s --check-prefix=UTF8
// UTF8: utf8.mlir:1:14: error: 'f' expects names in UTF-8, input 0 is named "\80"
// RUN: not test -e %t/utf8.so

//--- inputs.mlir
func.func @f(%a: tensor<2xf32> {rlx.name = "x"},
             %b: tensor<2xf32> {rlx.name = "x"}) -> tensor<2xf32> {
  %y = rlx.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
//--- outputs.mlir
func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32> {rlx.name = "y"}, tensor<2xf32> {rlx.name = "y"}) {
  return %a, %a : tensor<2xf32>, tensor<2xf32>
}
//--- nul.mlir
func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32> {rlx.name = "y\00"}) {
  return %a : tensor<2xf32>
}
//--- utf8.mlir
func.func @f(%a: tensor<2xf32> {rlx.name = "\80"}) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
