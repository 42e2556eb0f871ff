// rlxc takes MLIR's own pass manager, context and printing options
// (--mlir-*), as mlir-opt does.

// IR after one pass, named as in a pipeline.
// RUN: rlxc %s --grad=f --compile-to=simplify --mlir-print-ir-after=rlx-autodiff -o %t.simplify.mlir 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER-NOT: IR Dump
// AFTER: // -----// IR Dump After RLXAutodiff (rlx-autodiff) //----- //
// AFTER: func.func @f_grad
// AFTER-NOT: IR Dump

// IR after every pass, in pipeline order.
// RUN: rlxc %s --grad=f --compile-to=lower --mlir-print-ir-after-all -o %t.lower.mlir 2>&1 | FileCheck %s --check-prefix=ALL
// ALL: IR Dump After ConvertTosaToRLX (convert-tosa-to-rlx)
// ALL: IR Dump After RLXAddGradientEntries (rlx-add-gradient-entries)
// ALL: IR Dump After RLXAutodiff (rlx-autodiff)
// ALL: IR Dump After Inliner (inline)
// ALL: IR Dump After ConvertRLXToLinalg (convert-rlx-to-linalg)

// Time per pass, and the parser.
// RUN: rlxc %s --grad=f --compile-to=lower --mlir-timing -o %t.lower.mlir 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING: Parser
// TIMING: RLXAutodiff
// TIMING: ConvertRLXToLinalg

// A failing pass leaves a reproducer: the IR before the pipeline and the
// pipeline with every pass option, which rlx-opt runs to the same error.
// An option's value may also come as the next argument.
// RUN: not rlxc %s --grad=f --target=vulkan -o %t.so --mlir-pass-pipeline-crash-reproducer %t.repro.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: vulkan: math.exp on f64 has no SPIR-V lowering
// RUN: FileCheck %s --check-prefix=REPRO < %t.repro.mlir
// REPRO: func.func @f(
// REPRO: mlir_reproducer
// REPRO: pipeline: "builtin.module({{.*}}rlx-add-gradient-entries{{.*}}rlx-gpu-embed-device-code{{.*}}target=vulkan
// RUN: not rlx-opt %t.repro.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=FAIL

// MLIR's options are listed; an unknown one is an error.
// RUN: rlxc --help-mlir | FileCheck %s --check-prefix=HELP
// HELP-DAG: --mlir-pass-pipeline-crash-reproducer=<
// HELP-DAG: --mlir-print-ir-after-all
// HELP-DAG: --mlir-print-ir-after{{$}}
// HELP-DAG: --mlir-timing
// HELP-DAG: --mlir-disable-threading
// RUN: not rlxc %s --mlir-print-everything 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: Unknown command line argument '--mlir-print-everything'
func.func @f(%x: tensor<4xf64>) -> tensor<f64> {
  %w = rlx.param "w" : tensor<4xf64>
  %m = rlx.mul %x, %w : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %e = rlx.exp %m : tensor<4xf64>
  %s = rlx.sum %e {axes = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
