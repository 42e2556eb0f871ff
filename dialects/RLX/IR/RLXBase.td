//===- RLXBase.td - rlx dialect definition -----------------*- tablegen -*-===//
//
// The rlx dialect: tensor ops with value semantics on builtin ranked tensors.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXBASE_TD
#define RLX_DIALECT_RLXBASE_TD

include "mlir/IR/OpBase.td"

def RLX_Dialect : Dialect {
  let name = "rlx";
  let cppNamespace = "::mlir::rlx";
  let summary = "Tensor ops of the rlx ahead-of-time ML compiler";
  let description = [{
    Ops on builtin ranked tensors (static or dynamic dims) with value
    semantics. Elementwise ops broadcast like NumPy: shapes are aligned from
    the right and a static size 1 stretches to the other side. A dynamic dim
    never broadcasts at run time: it must equal the other side.

    Weights are `rlx.param` ops that name a tensor bound at run time.
  }];
  let hasConstantMaterializer = 1;
  let usePropertiesForAttributes = 1;
}

class RLX_Op<string mnemonic, list<Trait> traits = []>
    : Op<RLX_Dialect, mnemonic, traits>;

#endif // RLX_DIALECT_RLXBASE_TD
