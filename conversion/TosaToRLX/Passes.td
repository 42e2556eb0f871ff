//===- Passes.td - TOSA import -----------------------------*- tablegen -*-===//
//
// func + TOSA + ml_program into the rlx dialect.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_TOSATORLX_PASSES_TD
#define RLX_CONVERSION_TOSATORLX_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTosaToRLX : Pass<"convert-tosa-to-rlx", "mlir::ModuleOp"> {
  let summary = "Imports func + TOSA + ml_program models into the rlx dialect";
  let description = [{
    Rewrites every TOSA op into rlx ops, so that every later rlx pass,
    autodiff included, applies to models exported by other tools. Weights
    declared as `ml_program.global private @name(#ml_program.extern : T)` and
    read with `ml_program.global_load_const @name` become `rlx.param "name"`.
    `tosa.cond_if` becomes `rlx.switch` and `tosa.while_loop` `rlx.while`,
    their regions outlined into private functions (`<fn>__cond_if_then`,
    `<fn>__cond_if_else`, `<fn>__while_cond`, `<fn>__while_body`) that take
    the values a region uses from outside as leading arguments.
    An unsupported TOSA op is an error that names it.
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect"];
}

#endif // RLX_CONVERSION_TOSATORLX_PASSES_TD
