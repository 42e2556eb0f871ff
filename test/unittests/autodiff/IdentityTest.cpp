//===- IdentityTest.cpp - Closed-form derivative identities ---------------===//
//
/// \file
/// Small f64 modules written with the transform markers (rlx.grad,
/// rlx.value_and_grad, rlx.vjp, rlx.jvp, rlx.hvp) and rlx.stop_gradient,
/// compiled by the real rlxc, whose results have a closed form: d/dx sum x^2
/// = 2x, d2/dx2 x^3 = 6x (grad of grad), hvp of 0.5 x^T A x = A v, jvp of a
/// gradient against finite differences of gradients, value_and_grad
/// (has_aux too), a multi-output vjp, stop_gradient, wrt_params by name and
/// "all", zero gradients of leaves that do not contribute. All snippets form
/// one module; when it does not compile, each snippet compiles alone so the
/// failure names the snippet.
//
//===----------------------------------------------------------------------===//

#include "AutodiffUtil.h"
#include "GradCases.h"
#include "Reference.h"

#include <cmath>
#include <map>

using namespace rlx::e2e;
using namespace rlx::autodiff;

namespace {

struct Snippet {
  std::string name;
  std::string mlir;
};

const std::vector<Snippet> &snippets() {
  static const std::vector<Snippet> list = {
      {"grad_sumsq", R"(
func.func @sumsq(%x: tensor<5xf64>) -> tensor<f64> {
  %y = rlx.mul %x, %x : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xf64>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<5xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_sumsq(%x: tensor<5xf64>) -> tensor<5xf64> {
  %g = rlx.grad @sumsq(%x) {wrt = array<i64: 0>} : (tensor<5xf64>) -> tensor<5xf64>
  return %g : tensor<5xf64>
}
func.func @sumsq_dyn(%x: tensor<?x3xf64>) -> tensor<f64> {
  %y = rlx.mul %x, %x : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  %s = rlx.sum %y {axes = array<i64: 0, 1>} : (tensor<?x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_sumsq_dyn(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %g = rlx.grad @sumsq_dyn(%x) {wrt = array<i64: 0>} : (tensor<?x3xf64>) -> tensor<?x3xf64>
  return %g : tensor<?x3xf64>
}
)"},
      {"grad_of_grad", R"(
func.func @cube(%x: tensor<f64>) -> tensor<f64> {
  %x2 = rlx.mul %x, %x : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %x3 = rlx.mul %x2, %x : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %x3 : tensor<f64>
}
func.func @dcube(%x: tensor<f64>) -> tensor<f64> {
  %g = rlx.grad @cube(%x) {wrt = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %g : tensor<f64>
}
func.func @d2cube(%x: tensor<f64>) -> tensor<f64> {
  %h = rlx.grad @dcube(%x) {wrt = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %h : tensor<f64>
}
func.func @cube_sum(%x: tensor<4xf64>) -> tensor<f64> {
  %x2 = rlx.mul %x, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %x3 = rlx.mul %x2, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %s = rlx.sum %x3 {axes = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @dcube_sum(%x: tensor<4xf64>) -> tensor<f64> {
  %g = rlx.grad @cube_sum(%x) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  %s = rlx.sum %g {axes = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @d2cube_vec(%x: tensor<4xf64>) -> tensor<4xf64> {
  %h = rlx.grad @dcube_sum(%x) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %h : tensor<4xf64>
}
func.func @d2cube_sum(%x: tensor<4xf64>) -> tensor<f64> {
  %h = rlx.grad @dcube_sum(%x) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  %s = rlx.sum %h {axes = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @d3cube_vec(%x: tensor<4xf64>) -> tensor<4xf64> {
  %t = rlx.grad @d2cube_sum(%x) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %t : tensor<4xf64>
}
)"},
      {"hvp_quadratic", R"(
func.func @quad(%x: tensor<3xf64>) -> tensor<f64> {
  %A = rlx.constant dense<[[2.0, 0.5, -1.0], [0.5, 3.0, 0.25], [-1.0, 0.25, 1.5]]> : tensor<3x3xf64>
  %xc = rlx.reshape %x : (tensor<3xf64>) -> tensor<3x1xf64>
  %ax = rlx.matmul %A, %xc : (tensor<3x3xf64>, tensor<3x1xf64>) -> tensor<3x1xf64>
  %p = rlx.mul %xc, %ax : (tensor<3x1xf64>, tensor<3x1xf64>) -> tensor<3x1xf64>
  %s = rlx.sum %p {axes = array<i64: 0, 1>} : (tensor<3x1xf64>) -> tensor<f64>
  %h = rlx.constant dense<0.5> : tensor<f64>
  %q = rlx.mul %h, %s : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %q : tensor<f64>
}
func.func @hvp_quad(%x: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %hv = rlx.hvp @quad(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %hv : tensor<3xf64>
}
func.func @grad_quad(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = rlx.grad @quad(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @quad_param(%x: tensor<3xf64>) -> tensor<f64> {
  %A = rlx.param "id.quad.A" : tensor<3x3xf64>
  %xr = rlx.reshape %x : (tensor<3xf64>) -> tensor<1x3xf64>
  %xa = rlx.matmul %xr, %A : (tensor<1x3xf64>, tensor<3x3xf64>) -> tensor<1x3xf64>
  %p = rlx.mul %xa, %xr : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  %s = rlx.sum %p {axes = array<i64: 0, 1>} : (tensor<1x3xf64>) -> tensor<f64>
  %h = rlx.constant dense<0.5> : tensor<f64>
  %q = rlx.mul %s, %h : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %q : tensor<f64>
}
func.func @hvp_quad_param(%x: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %hv = rlx.hvp @quad_param(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %hv : tensor<3xf64>
}
)"},
      {"hvp_quadratic_rows", R"(
func.func @rquad(%x: tensor<1x3xf64>) -> tensor<f64> {
  %A = rlx.constant dense<[[2.0, 0.5, -1.0], [0.5, 3.0, 0.25], [-1.0, 0.25, 1.5]]> : tensor<3x3xf64>
  %xa = rlx.matmul %x, %A : (tensor<1x3xf64>, tensor<3x3xf64>) -> tensor<1x3xf64>
  %p = rlx.mul %xa, %x : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  %s = rlx.sum %p {axes = array<i64: 0, 1>} : (tensor<1x3xf64>) -> tensor<f64>
  %h = rlx.constant dense<0.5> : tensor<f64>
  %q = rlx.mul %h, %s : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %q : tensor<f64>
}
func.func @hvp_rquad(%x: tensor<1x3xf64>, %v: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %hv = rlx.hvp @rquad(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  return %hv : tensor<1x3xf64>
}
func.func @grad_rquad(%x: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %g = rlx.grad @rquad(%x) {wrt = array<i64: 0>} : (tensor<1x3xf64>) -> tensor<1x3xf64>
  return %g : tensor<1x3xf64>
}
func.func @rquad_param(%x: tensor<1x3xf64>) -> tensor<f64> {
  %A = rlx.param "id.quad.A" : tensor<3x3xf64>
  %xa = rlx.matmul %x, %A : (tensor<1x3xf64>, tensor<3x3xf64>) -> tensor<1x3xf64>
  %p = rlx.mul %xa, %x : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  %s = rlx.sum %p {axes = array<i64: 0, 1>} : (tensor<1x3xf64>) -> tensor<f64>
  %h = rlx.constant dense<0.5> : tensor<f64>
  %q = rlx.mul %s, %h : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %q : tensor<f64>
}
func.func @hvp_rquad_param(%x: tensor<1x3xf64>, %v: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %hv = rlx.hvp @rquad_param(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  return %hv : tensor<1x3xf64>
}
)"},
      {"jvp_of_grad", R"(
func.func @nl(%x: tensor<1x3xf64>) -> tensor<f64> {
  %W = rlx.constant dense<[[0.5, -1.0, 0.25], [1.5, 0.5, -0.5], [-0.75, 0.25, 1.0]]> : tensor<3x3xf64>
  %h = rlx.matmul %x, %W : (tensor<1x3xf64>, tensor<3x3xf64>) -> tensor<1x3xf64>
  %t = rlx.tanh %h : tensor<1x3xf64>
  %e = rlx.exp %x : tensor<1x3xf64>
  %p = rlx.mul %t, %e : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  %s = rlx.sum %p {axes = array<i64: 0, 1>} : (tensor<1x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_nl(%x: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %g = rlx.grad @nl(%x) {wrt = array<i64: 0>} : (tensor<1x3xf64>) -> tensor<1x3xf64>
  return %g : tensor<1x3xf64>
}
func.func @jvp_grad_nl(%x: tensor<1x3xf64>, %v: tensor<1x3xf64>) -> (tensor<1x3xf64>, tensor<1x3xf64>) {
  %g, %t = rlx.jvp @grad_nl(%x) tangents(%v) {wrt = array<i64: 0>}
      : (tensor<1x3xf64>, tensor<1x3xf64>) -> (tensor<1x3xf64>, tensor<1x3xf64>)
  return %g, %t : tensor<1x3xf64>, tensor<1x3xf64>
}
func.func @hvp_nl(%x: tensor<1x3xf64>, %v: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %hv = rlx.hvp @nl(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  return %hv : tensor<1x3xf64>
}
)"},
      {"value_and_grad", R"(
func.func @vcube(%x: tensor<4xf64>) -> tensor<f64> {
  %x2 = rlx.mul %x, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %x3 = rlx.mul %x2, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %s = rlx.sum %x3 {axes = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @vg_cube(%x: tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>) {
  %v, %g = rlx.value_and_grad @vcube(%x) {wrt = array<i64: 0>} : (tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>)
  return %v, %g : tensor<f64>, tensor<4xf64>
}
func.func @with_aux(%x: tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>) {
  %x2 = rlx.mul %x, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %x3 = rlx.mul %x2, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %s = rlx.sum %x3 {axes = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  %n = rlx.neg %x : tensor<4xf64>
  return %s, %n : tensor<f64>, tensor<4xf64>
}
func.func @vg_aux(%x: tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>, tensor<4xf64>) {
  %v, %a, %g = rlx.value_and_grad @with_aux(%x) {wrt = array<i64: 0>, has_aux}
      : (tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>, tensor<4xf64>)
  return %v, %a, %g : tensor<f64>, tensor<4xf64>, tensor<4xf64>
}
)"},
      {"vjp_multi_output", R"(
func.func @two(%x: tensor<3xf64>, %y: tensor<3xf64>) -> (tensor<3xf64>, tensor<f64>) {
  %a = rlx.mul %x, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %e = rlx.exp %x : tensor<3xf64>
  %b = rlx.sum %e {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %a, %b : tensor<3xf64>, tensor<f64>
}
func.func @vjp_two(%x: tensor<3xf64>, %y: tensor<3xf64>, %c1: tensor<3xf64>, %c2: tensor<f64>)
    -> (tensor<3xf64>, tensor<f64>, tensor<3xf64>, tensor<3xf64>) {
  %a, %b, %gx, %gy = rlx.vjp @two(%x, %y) cotangents(%c1, %c2) {wrt = array<i64: 0, 1>}
      : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>) -> (tensor<3xf64>, tensor<f64>, tensor<3xf64>, tensor<3xf64>)
  return %a, %b, %gx, %gy : tensor<3xf64>, tensor<f64>, tensor<3xf64>, tensor<3xf64>
}
func.func @vjp_two_y(%x: tensor<3xf64>, %y: tensor<3xf64>, %c1: tensor<3xf64>, %c2: tensor<f64>)
    -> (tensor<3xf64>, tensor<f64>, tensor<3xf64>) {
  %a, %b, %gy = rlx.vjp @two(%x, %y) cotangents(%c1, %c2) {wrt = array<i64: 1>}
      : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>) -> (tensor<3xf64>, tensor<f64>, tensor<3xf64>)
  return %a, %b, %gy : tensor<3xf64>, tensor<f64>, tensor<3xf64>
}
func.func @jvp_two(%x: tensor<3xf64>, %y: tensor<3xf64>, %tx: tensor<3xf64>, %ty: tensor<3xf64>)
    -> (tensor<3xf64>, tensor<f64>, tensor<3xf64>, tensor<f64>) {
  %a, %b, %ta, %tb = rlx.jvp @two(%x, %y) tangents(%tx, %ty) {wrt = array<i64: 0, 1>}
      : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<f64>, tensor<3xf64>, tensor<f64>)
  return %a, %b, %ta, %tb : tensor<3xf64>, tensor<f64>, tensor<3xf64>, tensor<f64>
}
)"},
      {"stop_gradient", R"(
func.func @sg_mix(%x: tensor<3xf64>) -> tensor<f64> {
  %s = rlx.stop_gradient %x : tensor<3xf64>
  %p = rlx.mul %x, %s : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %r = rlx.sum %p {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %r : tensor<f64>
}
func.func @grad_sg_mix(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = rlx.grad @sg_mix(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @sg_all(%x: tensor<?x3xf64>) -> tensor<f64> {
  %p = rlx.mul %x, %x : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  %s = rlx.stop_gradient %p : tensor<?x3xf64>
  %r = rlx.sum %s {axes = array<i64: 0, 1>} : (tensor<?x3xf64>) -> tensor<f64>
  return %r : tensor<f64>
}
func.func @grad_sg_all(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %g = rlx.grad @sg_all(%x) {wrt = array<i64: 0>} : (tensor<?x3xf64>) -> tensor<?x3xf64>
  return %g : tensor<?x3xf64>
}
func.func @jvp_sg_mix(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<f64>, tensor<f64>) {
  %y, %ty = rlx.jvp @sg_mix(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<f64>)
  return %y, %ty : tensor<f64>, tensor<f64>
}
)"},
      {"wrt_params", R"(
func.func @model(%x: tensor<2x3xf64>) -> tensor<f64> {
  %w = rlx.param "id.model.w" : tensor<3x2xf64>
  %b = rlx.param "id.model.b" : tensor<2xf64>
  %m = rlx.matmul %x, %w : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  %h = rlx.add %m, %b : (tensor<2x2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  %q = rlx.mul %h, %h : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  %s = rlx.sum %q {axes = array<i64: 0, 1>} : (tensor<2x2xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_model_all(%x: tensor<2x3xf64>) -> (tensor<3x2xf64>, tensor<2xf64>) {
  %gw, %gb = rlx.grad @model(%x) {wrt_params = "all"} : (tensor<2x3xf64>) -> (tensor<3x2xf64>, tensor<2xf64>)
  return %gw, %gb : tensor<3x2xf64>, tensor<2xf64>
}
func.func @grad_model_named(%x: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2xf64>, tensor<3x2xf64>) {
  %gx, %gb, %gw = rlx.grad @model(%x) {wrt = array<i64: 0>, wrt_params = ["id.model.b", "id.model.w"]}
      : (tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2xf64>, tensor<3x2xf64>)
  return %gx, %gb, %gw : tensor<2x3xf64>, tensor<2xf64>, tensor<3x2xf64>
}
)"},
      {"zero_leaves", R"(
func.func @partial(%x: tensor<3xf64>, %y: tensor<2x4xf64>, %z: tensor<?x2xf64>) -> tensor<f64> {
  %u = rlx.param "id.partial.u" : tensor<3xf64>
  %su = rlx.stop_gradient %u : tensor<3xf64>
  %p = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %q = rlx.add %p, %su : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = rlx.sum %q {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_partial(%x: tensor<3xf64>, %y: tensor<2x4xf64>, %z: tensor<?x2xf64>)
    -> (tensor<3xf64>, tensor<2x4xf64>, tensor<?x2xf64>, tensor<3xf64>) {
  %gx, %gy, %gz, %gu = rlx.grad @partial(%x, %y, %z) {wrt = array<i64: 0, 1, 2>, wrt_params = ["id.partial.u"]}
      : (tensor<3xf64>, tensor<2x4xf64>, tensor<?x2xf64>) -> (tensor<3xf64>, tensor<2x4xf64>, tensor<?x2xf64>, tensor<3xf64>)
  return %gx, %gy, %gz, %gu : tensor<3xf64>, tensor<2x4xf64>, tensor<?x2xf64>, tensor<3xf64>
}
)"},
      {"custom_rules", R"(
func.func private @csq(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %y = rlx.mul %x, %x : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  return %y : tensor<?x3xf64>
}
func.func private @csq_fwd(%x: tensor<?x3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>) {
  %y = rlx.mul %x, %x : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  return %y, %x : tensor<?x3xf64>, tensor<?x3xf64>
}
func.func private @csq_bwd(%x: tensor<?x3xf64>, %g: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %c = rlx.constant dense<-1.0> : tensor<f64>
  %a = rlx.mul %g, %c : (tensor<?x3xf64>, tensor<f64>) -> tensor<?x3xf64>
  return %a : tensor<?x3xf64>
}
func.func private @closs(%x: tensor<?x3xf64>) -> tensor<f64> {
  %y = rlx.custom_vjp @csq(%x) {fwd = @csq_fwd, bwd = @csq_bwd} : (tensor<?x3xf64>) -> tensor<?x3xf64>
  %e = rlx.exp %y : tensor<?x3xf64>
  %s = rlx.sum %e {axes = array<i64: 0, 1>} : (tensor<?x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @vg_custom_vjp(%x: tensor<?x3xf64>) -> (tensor<f64>, tensor<?x3xf64>) {
  %v, %g = rlx.value_and_grad @closs(%x) {wrt = array<i64: 0>} : (tensor<?x3xf64>) -> (tensor<f64>, tensor<?x3xf64>)
  return %v, %g : tensor<f64>, tensor<?x3xf64>
}
func.func private @cexp(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.exp %x : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @cexp_jvp(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y = rlx.exp %x : tensor<3xf64>
  %ty = rlx.mul %t, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y, %ty : tensor<3xf64>, tensor<3xf64>
}
func.func private @cuse(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.custom_jvp @cexp(%x) {jvp = @cexp_jvp} : (tensor<3xf64>) -> tensor<3xf64>
  %z = rlx.tanh %y : tensor<3xf64>
  return %z : tensor<3xf64>
}
func.func @jvp_custom_jvp(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y, %ty = rlx.jvp @cuse(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %y, %ty : tensor<3xf64>, tensor<3xf64>
}
func.func private @rblock(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %a = rlx.tanh %x : tensor<?x3xf64>
  %b = rlx.tanh %a : tensor<?x3xf64>
  return %b : tensor<?x3xf64>
}
func.func private @rloss(%x: tensor<?x3xf64>) -> tensor<f64> {
  %h = rlx.remat @rblock(%x) : (tensor<?x3xf64>) -> tensor<?x3xf64>
  %q = rlx.mul %h, %x : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  %s = rlx.sum %q {axes = array<i64: 0, 1>} : (tensor<?x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_remat(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %g = rlx.grad @rloss(%x) {wrt = array<i64: 0>} : (tensor<?x3xf64>) -> tensor<?x3xf64>
  return %g : tensor<?x3xf64>
}
func.func @hvp_remat(%x: tensor<?x3xf64>, %v: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %hv = rlx.hvp @rloss(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  return %hv : tensor<?x3xf64>
}
)"},
      {"jacobians", R"(
func.func @jf(%x: tensor<3xf64>) -> tensor<2xf64> {
  %w = rlx.constant dense<[[1.0, 2.0, -1.0], [0.5, -1.5, 3.0]]> : tensor<2x3xf64>
  %x2 = rlx.reshape %x : (tensor<3xf64>) -> tensor<3x1xf64>
  %y = rlx.matmul %w, %x2 : (tensor<2x3xf64>, tensor<3x1xf64>) -> tensor<2x1xf64>
  %r = rlx.reshape %y : (tensor<2x1xf64>) -> tensor<2xf64>
  %t = rlx.tanh %r : tensor<2xf64>
  return %t : tensor<2xf64>
}
func.func @js(%x: tensor<3xf64>) -> tensor<f64> {
  %e = rlx.exp %x : tensor<3xf64>
  %m = rlx.mul %e, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %p = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  %q = rlx.mul %p, %p : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %q : tensor<f64>
}
func.func @jacs(%x: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3x3xf64>) {
  %a = rlx.jacfwd @jf(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  %b = rlx.jacrev @jf(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  %h = rlx.hessian @js(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x3xf64>
  return %a, %b, %h : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3x3xf64>
}
)"},
      {"vmap", R"(
func.func @one(%x: tensor<4xf64>, %w: tensor<4x3xf64>) -> tensor<3xf64> {
  %x2 = rlx.reshape %x : (tensor<4xf64>) -> tensor<1x4xf64>
  %y = rlx.matmul %x2, %w : (tensor<1x4xf64>, tensor<4x3xf64>) -> tensor<1x3xf64>
  %r = rlx.reshape %y : (tensor<1x3xf64>) -> tensor<3xf64>
  %t = rlx.tanh %r : tensor<3xf64>
  %s = rlx.softmax %t {axis = 0 : i64} : tensor<3xf64>
  return %s : tensor<3xf64>
}
func.func @rows(%xs: tensor<?x4xf64>, %w: tensor<4x3xf64>) -> tensor<?x3xf64> {
  %ys = rlx.vmap @one(%xs, %w) {in_axes = [0, unit], out_axes = array<i64: 0>} : (tensor<?x4xf64>, tensor<4x3xf64>) -> tensor<?x3xf64>
  return %ys : tensor<?x3xf64>
}
func.func @cols(%xs: tensor<4x5xf64>, %w: tensor<4x3xf64>) -> tensor<3x5xf64> {
  %ys = rlx.vmap @one(%xs, %w) {in_axes = [-1, unit], out_axes = array<i64: 1>} : (tensor<4x5xf64>, tensor<4x3xf64>) -> tensor<3x5xf64>
  return %ys : tensor<3x5xf64>
}
func.func private @loss(%x: tensor<4xf64>, %w: tensor<4x3xf64>) -> tensor<f64> {
  %s = func.call @one(%x, %w) : (tensor<4xf64>, tensor<4x3xf64>) -> tensor<3xf64>
  %l = rlx.log %s : tensor<3xf64>
  %m = rlx.sum %l {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %m : tensor<f64>
}
func.func @grad_one(%x: tensor<4xf64>, %w: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %g = rlx.grad @loss(%x, %w) {wrt = array<i64: 1>} : (tensor<4xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %g : tensor<4x3xf64>
}
func.func @per_example(%xs: tensor<?x4xf64>, %w: tensor<4x3xf64>) -> tensor<?x4x3xf64> {
  %gs = rlx.vmap @grad_one(%xs, %w) {in_axes = [0, unit], out_axes = array<i64: 0>} : (tensor<?x4xf64>, tensor<4x3xf64>) -> tensor<?x4x3xf64>
  return %gs : tensor<?x4x3xf64>
}
)"},
      // Per-example gradients (vmap of grad) over a dynamic batch of inputs
      // with a dynamic sequence dim: the keepdims reductions of the centered
      // loss and of softmax's VJP run over [?, ?, 1].
      {"per_example_dynamic_seq", R"(
func.func private @pds_centered(%x: tensor<?x3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %y = rlx.mul %x, %w : (tensor<?x3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
  %r = rlx.mean %y {axes = array<i64: 1>, keepdims = true} : (tensor<?x3xf64>) -> tensor<?x1xf64>
  %d = rlx.sub %y, %r : (tensor<?x3xf64>, tensor<?x1xf64>) -> tensor<?x3xf64>
  %q = rlx.mul %d, %d : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  %s = rlx.sum %q {axes = array<i64: 0, 1>} : (tensor<?x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @pds_softmax(%x: tensor<?x3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %y = rlx.mul %x, %w : (tensor<?x3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
  %p = rlx.softmax %y {axis = 1 : i64} : tensor<?x3xf64>
  %c = rlx.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %t = rlx.mul %p, %c : (tensor<?x3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
  %s = rlx.sum %t {axes = array<i64: 0, 1>} : (tensor<?x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func private @pds_grads(%x: tensor<?x3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %a = rlx.grad @pds_centered(%x, %w) {wrt = array<i64: 1>} : (tensor<?x3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %b = rlx.grad @pds_softmax(%x, %w) {wrt = array<i64: 1>} : (tensor<?x3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %a, %b : tensor<3xf64>, tensor<3xf64>
}
func.func @pds_per_example(%xs: tensor<?x?x3xf64>, %w: tensor<3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>) {
  %g:2 = rlx.vmap @pds_grads(%xs, %w) {in_axes = [0, unit], out_axes = array<i64: 0, 0>} : (tensor<?x?x3xf64>, tensor<3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>)
  return %g#0, %g#1 : tensor<?x3xf64>, tensor<?x3xf64>
}
)"},
      {"vmap_custom_vjp_second_order", R"(
func.func private @vcv_tanh(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.tanh %x : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @vcv_tanh_fwd(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y = rlx.tanh %x : tensor<3xf64>
  return %y, %y : tensor<3xf64>, tensor<3xf64>
}
func.func private @vcv_tanh_bwd(%y: tensor<3xf64>, %g: tensor<3xf64>) -> tensor<3xf64> {
  %one = rlx.constant dense<1.0> : tensor<f64>
  %yy = rlx.mul %y, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %d = rlx.sub %one, %yy : (tensor<f64>, tensor<3xf64>) -> tensor<3xf64>
  %r = rlx.mul %g, %d : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func private @vcv_one(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.custom_vjp @vcv_tanh(%x) {fwd = @vcv_tanh_fwd, bwd = @vcv_tanh_bwd} : (tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @vcv_f(%xs: tensor<2x3xf64>) -> tensor<f64> {
  %ys = rlx.vmap @vcv_one(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %ys {axes = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @vcv_grad_f(%xs: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %g = rlx.grad @vcv_f(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %g : tensor<2x3xf64>
}
func.func @vcv_sum_grad(%xs: tensor<2x3xf64>) -> tensor<f64> {
  %g = rlx.grad @vcv_f(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %g {axes = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @vcv_grad_sum_grad(%xs: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %g = rlx.grad @vcv_sum_grad(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %g : tensor<2x3xf64>
}
)"},
      {"control_flow", R"(
func.func private @cf_mulx(%x: tensor<?xf64>, %h: tensor<?xf64>) -> tensor<?xf64> {
  %y = rlx.mul %h, %x : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  return %y : tensor<?xf64>
}
func.func private @cf_pow4(%x: tensor<?xf64>) -> tensor<f64> {
  %one = rlx.constant dense<1.0> : tensor<f64>
  %h0 = rlx.mul %x, %one : (tensor<?xf64>, tensor<f64>) -> tensor<?xf64>
  %h0n = rlx.div %h0, %x : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %h = rlx.scan @cf_mulx consts(%x) init(%h0n) {length = 4 : i64} : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %s = rlx.sum %h {axes = array<i64: 0>} : (tensor<?xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_scan_pow4(%x: tensor<?xf64>) -> tensor<?xf64> {
  %g = rlx.grad @cf_pow4(%x) {wrt = array<i64: 0>} : (tensor<?xf64>) -> tensor<?xf64>
  return %g : tensor<?xf64>
}
func.func @hvp_scan_pow4(%x: tensor<?xf64>, %v: tensor<?xf64>) -> tensor<?xf64> {
  %hv = rlx.hvp @cf_pow4(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  return %hv : tensor<?xf64>
}
func.func private @cf_below(%x: tensor<f64>, %y: tensor<f64>) -> tensor<i1> {
  %ten = rlx.constant dense<10.0> : tensor<f64>
  %c = rlx.compare "lt", %x, %ten : (tensor<f64>, tensor<f64>) -> tensor<i1>
  return %c : tensor<i1>
}
func.func private @cf_double(%x: tensor<f64>, %y: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %x2 = rlx.add %x, %x : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %y2 = rlx.mul %y, %y : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %x2, %y2 : tensor<f64>, tensor<f64>
}
func.func private @cf_loop(%x: tensor<f64>, %y: tensor<f64>) -> tensor<f64> {
  %rx, %ry = rlx.while @cf_below, @cf_double init(%x, %y) : (tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
  return %ry : tensor<f64>
}
func.func @jvp_while(%x: tensor<f64>, %y: tensor<f64>, %t: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %r, %tr = rlx.jvp @cf_loop(%x, %y) tangents(%t) {wrt = array<i64: 1>} : (tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
  return %r, %tr : tensor<f64>, tensor<f64>
}
func.func private @cf_square(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @cf_cube(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %z = rlx.mul %y, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %z : tensor<3xf64>
}
func.func private @cf_pick(%i: tensor<i32>, %x: tensor<3xf64>) -> tensor<f64> {
  %y = rlx.switch %i [@cf_square, @cf_cube](%x) : (tensor<i32>, tensor<3xf64>) -> tensor<3xf64>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_switch(%i: tensor<i32>, %x: tensor<3xf64>) -> tensor<3xf64> {
  %g = rlx.grad @cf_pick(%i, %x) {wrt = array<i64: 1>} : (tensor<i32>, tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
)"},
  };
  return list;
}

/// Param values bound in every identity module.
const std::map<std::string, Arr> &identityParams() {
  static const std::map<std::string, Arr> params = {
      {"id.quad.A", f64({3, 3}, {1.0, -0.5, 0.25, -0.5, 2.0, 0.75, 0.25, 0.75, 3.0})},
      {"id.model.w", generate(RLX_DTYPE_F64, {3, 2}, uniform(-1, 1), "id.model.w")},
      {"id.model.b", generate(RLX_DTYPE_F64, {2}, uniform(-1, 1), "id.model.b")},
      {"id.partial.u", generate(RLX_DTYPE_F64, {3}, uniform(-1, 1), "id.partial.u")},
  };
  return params;
}

std::unique_ptr<Compiled> compileSnippets(const std::string &stem,
                                          const std::vector<const Snippet *> &list) {
  std::string text = "// rlx autodiff identity tests\n";
  for (const Snippet *s : list)
    text += s->mlir;
  std::unique_ptr<Compiled> module = compile(stem, text);
  if (module->ok)
    for (const auto &[name, value] : identityParams())
      if (text.find('"' + name + '"') != std::string::npos)
        module->session->bind_tensor(name, toTensor(value));
  return module;
}

/// The module of all snippets, or the one of `name` alone when that fails.
Compiled &moduleOf(const std::string &name) {
  static std::unique_ptr<Compiled> all;
  static std::map<std::string, std::unique_ptr<Compiled>> alone;
  if (!all) {
    std::vector<const Snippet *> list;
    for (const Snippet &s : snippets())
      list.push_back(&s);
    all = compileSnippets("identities", list);
    if (!all->ok)
      std::fprintf(stderr,
                   "rlx-autodiff: the identity module did not compile; "
                   "compiling each snippet alone.\n%s\n",
                   all->error.c_str());
  }
  if (all->ok)
    return *all;
  std::unique_ptr<Compiled> &slot = alone[name];
  if (!slot) {
    const Snippet *snippet = nullptr;
    for (const Snippet &s : snippets())
      if (s.name == name)
        snippet = &s;
    if (!snippet)
      throw std::runtime_error("no snippet " + name);
    slot = compileSnippets("identity_" + name, {snippet});
  }
  return *slot;
}

#define IDENTITY_MODULE(var, snippet)                                          \
  Compiled &var = moduleOf(snippet);                                           \
  ASSERT_TRUE(var.ok) << var.error;                                            \
  const rlx::runtime::Session &session = *var.session;                         \
  (void)session

Arr map1(const Arr &x, double (*fn)(double)) {
  Arr r = x;
  for (double &e : r.v)
    e = fn(e);
  return r;
}

Arr scalar(double value) { return f64({}, {value}); }

} // namespace

namespace rlx::autodiff {
std::vector<std::string> identityModuleTexts() {
  std::vector<std::string> texts;
  for (const Snippet &s : snippets())
    texts.push_back(s.mlir);
  return texts;
}
} // namespace rlx::autodiff

namespace {

Arr draw(std::vector<int64_t> shape, const std::string &seed,
         double lo = -2, double hi = 2) {
  return generate(RLX_DTYPE_F64, std::move(shape), uniform(lo, hi), seed);
}

TEST(Identity, GradOfSumOfSquaresIsTwoX) {
  IDENTITY_MODULE(m, "grad_sumsq");
  Arr x = draw({5}, "sumsq/x");
  std::vector<Arr> g = call(session, "grad_sumsq", {x});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(matches(map1(x, [](double v) { return 2 * v; }), g[0], Tol::Arith));
  for (int64_t batch : {3, 1}) {
    SCOPED_TRACE("dynamic batch " + std::to_string(batch));
    Arr y = draw({batch, 3}, "sumsq/y" + std::to_string(batch));
    std::vector<Arr> gy = call(session, "grad_sumsq_dyn", {y});
    ASSERT_EQ(gy.size(), 1u);
    EXPECT_TRUE(matches(map1(y, [](double v) { return 2 * v; }), gy[0], Tol::Arith));
  }
}

TEST(Identity, SecondDerivativeOfCubeIsSixX) {
  IDENTITY_MODULE(m, "grad_of_grad");
  for (double x : {-1.75, 0.5, 2.25}) {
    SCOPED_TRACE("x = " + std::to_string(x));
    std::vector<Arr> d1 = call(session, "dcube", {scalar(x)});
    std::vector<Arr> d2 = call(session, "d2cube", {scalar(x)});
    ASSERT_EQ(d1.size(), 1u);
    ASSERT_EQ(d2.size(), 1u);
    EXPECT_TRUE(matches(scalar(3 * x * x), d1[0], Tol::Arith)) << "d/dx x^3";
    EXPECT_TRUE(matches(scalar(6 * x), d2[0], Tol::Arith)) << "d2/dx2 x^3";
  }
  // Elementwise through sums: grad of sum(grad of sum x^3) = 6x, and once
  // more, 6.
  Arr v = draw({4}, "cube/v");
  std::vector<Arr> d2 = call(session, "d2cube_vec", {v});
  std::vector<Arr> d3 = call(session, "d3cube_vec", {v});
  ASSERT_EQ(d2.size(), 1u);
  ASSERT_EQ(d3.size(), 1u);
  EXPECT_TRUE(matches(map1(v, [](double e) { return 6 * e; }), d2[0], Tol::Arith));
  EXPECT_TRUE(matches(f64({4}, {6, 6, 6, 6}), d3[0], Tol::Arith));
}

/// The same with x a row [1, 3] (no reshape before the matmul).
TEST(Identity, HvpOfQuadraticIsAvRowVector) {
  IDENTITY_MODULE(m, "hvp_quadratic_rows");
  Arr A = f64({3, 3}, {2.0, 0.5, -1.0, 0.5, 3.0, 0.25, -1.0, 0.25, 1.5});
  const Arr &P = identityParams().at("id.quad.A");
  // x A for a row x; A and P are symmetric.
  for (int i = 0; i < 3; ++i) {
    Arr x = draw({1, 3}, "rquad/x" + std::to_string(i));
    Arr v = draw({1, 3}, "rquad/v" + std::to_string(i));
    std::vector<Arr> hv = call(session, "hvp_rquad", {x, v});
    ASSERT_EQ(hv.size(), 1u);
    EXPECT_TRUE(matches(ref::matmul(v, A), hv[0], Tol::Arith)) << "hvp, A constant";
    std::vector<Arr> g = call(session, "grad_rquad", {x});
    ASSERT_EQ(g.size(), 1u);
    EXPECT_TRUE(matches(ref::matmul(x, A), g[0], Tol::Arith)) << "grad, A constant";
    std::vector<Arr> hp = call(session, "hvp_rquad_param", {x, v});
    ASSERT_EQ(hp.size(), 1u);
    EXPECT_TRUE(matches(ref::matmul(v, P), hp[0], Tol::Arith)) << "hvp, A a param";
  }
}

/// x a vector [3], reshaped to a column for the matmul.
TEST(Identity, HvpOfQuadraticIsAv) {
  IDENTITY_MODULE(m, "hvp_quadratic");
  Arr A = f64({3, 3}, {2.0, 0.5, -1.0, 0.5, 3.0, 0.25, -1.0, 0.25, 1.5});
  const Arr &P = identityParams().at("id.quad.A");
  auto times = [](const Arr &M, const Arr &x) {
    return ref::reshape(ref::matmul(M, ref::reshape(x, {3, 1})), {3});
  };
  for (int i = 0; i < 3; ++i) {
    Arr x = draw({3}, "quad/x" + std::to_string(i));
    Arr v = draw({3}, "quad/v" + std::to_string(i));
    std::vector<Arr> hv = call(session, "hvp_quad", {x, v});
    ASSERT_EQ(hv.size(), 1u);
    EXPECT_TRUE(matches(times(A, v), hv[0], Tol::Arith)) << "hvp, A constant";
    std::vector<Arr> g = call(session, "grad_quad", {x});
    ASSERT_EQ(g.size(), 1u);
    EXPECT_TRUE(matches(times(A, x), g[0], Tol::Arith)) << "grad, A constant";
    std::vector<Arr> hp = call(session, "hvp_quad_param", {x, v});
    ASSERT_EQ(hp.size(), 1u);
    EXPECT_TRUE(matches(times(P, v), hp[0], Tol::Arith)) << "hvp, A a param";
  }
}

TEST(Identity, JvpOfGradMatchesFiniteDifferencesOfGrad) {
  IDENTITY_MODULE(m, "jvp_of_grad");
  const double eps = 1e-6;
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    Arr x = draw({1, 3}, "nl/x" + std::to_string(i), -1, 1);
    Arr v = draw({1, 3}, "nl/v" + std::to_string(i), -1, 1);
    Arr xp = x, xm = x;
    for (size_t k = 0; k < x.v.size(); ++k) {
      xp.v[k] += eps * v.v[k];
      xm.v[k] -= eps * v.v[k];
    }
    std::vector<Arr> g = call(session, "grad_nl", {x});
    std::vector<Arr> gp = call(session, "grad_nl", {xp});
    std::vector<Arr> gm = call(session, "grad_nl", {xm});
    std::vector<Arr> jvp = call(session, "jvp_grad_nl", {x, v});
    std::vector<Arr> hvp = call(session, "hvp_nl", {x, v});
    ASSERT_EQ(g.size(), 1u);
    ASSERT_EQ(gp.size(), 1u);
    ASSERT_EQ(gm.size(), 1u);
    ASSERT_EQ(jvp.size(), 2u);
    ASSERT_EQ(hvp.size(), 1u);
    EXPECT_TRUE(matches(g[0], jvp[0], Tol::Arith)) << "jvp's primal is the gradient";
    for (size_t k = 0; k < 3; ++k) {
      double fd = (gp[0].v[k] - gm[0].v[k]) / (2 * eps);
      EXPECT_NEAR(jvp[1].v[k], fd, 1e-7 + 1e-5 * std::fabs(fd))
          << "d(grad)/dx . v at " << k;
    }
    EXPECT_TRUE(matches(jvp[1], hvp[0], Tol::Arith)) << "hvp = jvp of grad";
  }
  // The gradient itself, against central differences of the function.
  Arr x = draw({1, 3}, "nl/x0", -1, 1);
  std::vector<Arr> g = call(session, "grad_nl", {x});
  ASSERT_EQ(g.size(), 1u);
  for (size_t k = 0; k < 3; ++k) {
    Arr xp = x, xm = x;
    xp.v[k] += eps;
    xm.v[k] -= eps;
    double fd = (call(session, "nl", {xp})[0].v[0] -
                 call(session, "nl", {xm})[0].v[0]) /
                (2 * eps);
    EXPECT_NEAR(g[0].v[k], fd, 1e-7 + 1e-5 * std::fabs(fd)) << "d f / dx" << k;
  }
}

TEST(Identity, ValueAndGradGivesBoth) {
  IDENTITY_MODULE(m, "value_and_grad");
  Arr x = draw({4}, "vg/x");
  double sum = 0;
  for (double e : x.v)
    sum += e * e * e;
  Arr grad = map1(x, [](double e) { return 3 * e * e; });
  std::vector<Arr> vg = call(session, "vg_cube", {x});
  ASSERT_EQ(vg.size(), 2u);
  EXPECT_TRUE(matches(scalar(sum), vg[0], Tol::Arith)) << "value";
  EXPECT_TRUE(matches(grad, vg[1], Tol::Arith)) << "gradient";
  std::vector<Arr> aux = call(session, "vg_aux", {x});
  ASSERT_EQ(aux.size(), 3u);
  EXPECT_TRUE(matches(scalar(sum), aux[0], Tol::Arith)) << "value (has_aux)";
  EXPECT_TRUE(matches(map1(x, [](double e) { return -e; }), aux[1], Tol::Exact))
      << "aux output";
  EXPECT_TRUE(matches(grad, aux[2], Tol::Arith)) << "gradient (has_aux)";
}

TEST(Identity, VjpOfMultiOutputFunction) {
  IDENTITY_MODULE(m, "vjp_multi_output");
  Arr x = draw({3}, "two/x"), y = draw({3}, "two/y");
  Arr c1 = draw({3}, "two/c1"), c2 = scalar(-0.75);
  Arr a(RLX_DTYPE_F64, {3}), gx(RLX_DTYPE_F64, {3}), gy(RLX_DTYPE_F64, {3});
  double b = 0;
  for (int k = 0; k < 3; ++k) {
    a.v[k] = x.v[k] * y.v[k];
    b += std::exp(x.v[k]);
    gx.v[k] = c1.v[k] * y.v[k] + c2.v[0] * std::exp(x.v[k]);
    gy.v[k] = c1.v[k] * x.v[k];
  }
  std::vector<Arr> r = call(session, "vjp_two", {x, y, c1, c2});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(matches(a, r[0], Tol::Arith)) << "output a";
  EXPECT_TRUE(matches(scalar(b), r[1], Tol::Trans)) << "output b";
  EXPECT_TRUE(matches(gx, r[2], Tol::Trans)) << "adjoint of x";
  EXPECT_TRUE(matches(gy, r[3], Tol::Arith)) << "adjoint of y";
  std::vector<Arr> s = call(session, "vjp_two_y", {x, y, c1, c2});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(matches(gy, s[2], Tol::Arith)) << "adjoint of y alone (wrt = [1])";
  // And forward: ta = tx y + x ty, tb = sum exp(x) tx.
  Arr tx = draw({3}, "two/tx"), ty = draw({3}, "two/ty");
  Arr ta(RLX_DTYPE_F64, {3});
  double tb = 0;
  for (int k = 0; k < 3; ++k) {
    ta.v[k] = tx.v[k] * y.v[k] + x.v[k] * ty.v[k];
    tb += std::exp(x.v[k]) * tx.v[k];
  }
  std::vector<Arr> j = call(session, "jvp_two", {x, y, tx, ty});
  ASSERT_EQ(j.size(), 4u);
  EXPECT_TRUE(matches(ta, j[2], Tol::Arith)) << "tangent of a";
  EXPECT_TRUE(matches(scalar(tb), j[3], Tol::Trans)) << "tangent of b";
}

TEST(Identity, StopGradientBlocksDerivatives) {
  IDENTITY_MODULE(m, "stop_gradient");
  Arr x = draw({3}, "sg/x");
  std::vector<Arr> g = call(session, "grad_sg_mix", {x});
  ASSERT_EQ(g.size(), 1u);
  // d/dx sum(x * sg(x)) = sg(x) = x, not 2x.
  EXPECT_TRUE(matches(x, g[0], Tol::Arith));
  Arr t = draw({3}, "sg/t");
  double ty = 0, y = 0;
  for (int k = 0; k < 3; ++k) {
    ty += x.v[k] * t.v[k];
    y += x.v[k] * x.v[k];
  }
  std::vector<Arr> j = call(session, "jvp_sg_mix", {x, t});
  ASSERT_EQ(j.size(), 2u);
  EXPECT_TRUE(matches(scalar(y), j[0], Tol::Arith));
  EXPECT_TRUE(matches(scalar(ty), j[1], Tol::Arith));
  for (int64_t batch : {2, 1}) {
    Arr z = draw({batch, 3}, "sg/z" + std::to_string(batch));
    std::vector<Arr> gz = call(session, "grad_sg_all", {z});
    ASSERT_EQ(gz.size(), 1u);
    EXPECT_TRUE(matches(Arr(RLX_DTYPE_F64, {batch, 3}), gz[0], Tol::Exact))
        << "gradient through stop_gradient of everything";
  }
}

TEST(Identity, WrtParamsByNameAndAll) {
  IDENTITY_MODULE(m, "wrt_params");
  const Arr &w = identityParams().at("id.model.w");
  const Arr &b = identityParams().at("id.model.b");
  Arr x = draw({2, 3}, "model/x");
  // h = x w + b, L = sum h^2: dL/dh = 2h.
  Arr h2 = ref::binary(RLX_DTYPE_F64, ref::matmul(x, w), b,
                       [](double p, double q) { return 2 * (p + q); });
  Arr gw = ref::matmul(ref::transpose(x, {1, 0}), h2);
  Arr gb = ref::reduce(h2, {0}, false, ref::Reduce::Sum);
  Arr gx = ref::matmul(h2, ref::transpose(w, {1, 0}));
  std::vector<Arr> all = call(session, "grad_model_all", {x});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(matches(gw, all[0], Tol::Arith)) << "all: first use is w";
  EXPECT_TRUE(matches(gb, all[1], Tol::Arith)) << "all: then b";
  std::vector<Arr> named = call(session, "grad_model_named", {x});
  ASSERT_EQ(named.size(), 3u);
  EXPECT_TRUE(matches(gx, named[0], Tol::Arith)) << "input x";
  EXPECT_TRUE(matches(gb, named[1], Tol::Arith)) << "b, named first";
  EXPECT_TRUE(matches(gw, named[2], Tol::Arith)) << "w, named second";
}

TEST(Identity, LeavesThatDoNotContributeGetZeros) {
  IDENTITY_MODULE(m, "zero_leaves");
  Arr x = draw({3}, "partial/x"), y = draw({2, 4}, "partial/y");
  for (int64_t batch : {3, 1}) {
    SCOPED_TRACE("z batch " + std::to_string(batch));
    Arr z = draw({batch, 2}, "partial/z" + std::to_string(batch));
    std::vector<Arr> g = call(session, "grad_partial", {x, y, z});
    ASSERT_EQ(g.size(), 4u);
    EXPECT_TRUE(matches(map1(x, [](double e) { return 2 * e; }), g[0], Tol::Arith));
    EXPECT_TRUE(matches(Arr(RLX_DTYPE_F64, {2, 4}), g[1], Tol::Exact)) << "y unused";
    EXPECT_TRUE(matches(Arr(RLX_DTYPE_F64, {batch, 2}), g[2], Tol::Exact))
        << "z unused, dynamic shape";
    EXPECT_TRUE(matches(Arr(RLX_DTYPE_F64, {3}), g[3], Tol::Exact))
        << "param only through stop_gradient";
  }
}

/// custom_vjp's rule is used, not its callee's derivative: with bwd = -g,
/// d/dx sum exp(custom(x)) = -exp(x^2) (the true one is 2x exp(x^2)).
TEST(Identity, CustomVjpRuleIsUsed) {
  IDENTITY_MODULE(m, "custom_rules");
  for (int64_t batch : {2, 1}) {
    Arr x = draw({batch, 3}, "custom/x" + std::to_string(batch), -1, 1);
    double value = 0;
    Arr g = x;
    for (size_t k = 0; k < x.v.size(); ++k) {
      value += std::exp(x.v[k] * x.v[k]);
      g.v[k] = -std::exp(x.v[k] * x.v[k]);
    }
    std::vector<Arr> r = call(session, "vg_custom_vjp", {x});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(matches(scalar(value), r[0], Tol::Trans)) << "value";
    EXPECT_TRUE(matches(g, r[1], Tol::Trans)) << "gradient from the custom rule";
  }
}

/// custom_jvp's rule is used: with jvp = t x, the tangent of tanh(exp(x))
/// is (1 - tanh^2(exp x)) t x (the true one has exp(x) for x).
TEST(Identity, CustomJvpRuleIsUsed) {
  IDENTITY_MODULE(m, "custom_rules");
  Arr x = draw({3}, "cjvp/x", -1, 1), t = draw({3}, "cjvp/t", -1, 1);
  Arr y = x, ty = x;
  for (size_t k = 0; k < 3; ++k) {
    double th = std::tanh(std::exp(x.v[k]));
    y.v[k] = th;
    ty.v[k] = (1 - th * th) * t.v[k] * x.v[k];
  }
  std::vector<Arr> r = call(session, "jvp_custom_jvp", {x, t});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(matches(y, r[0], Tol::Trans)) << "value";
  EXPECT_TRUE(matches(ty, r[1], Tol::Trans)) << "tangent from the custom rule";
}

/// remat changes memory, not derivatives: L = sum(tanh(tanh x) x) has
/// dL/dx = tanh(tanh x) + x (1 - tanh^2(tanh x)) (1 - tanh^2 x), and the
/// hvp through remat matches central differences of that gradient.
TEST(Identity, RematKeepsTheGradient) {
  IDENTITY_MODULE(m, "custom_rules");
  auto grad = [](double x) {
    double a = std::tanh(x), b = std::tanh(a);
    return b + x * (1 - b * b) * (1 - a * a);
  };
  for (int64_t batch : {3, 1}) {
    Arr x = draw({batch, 3}, "remat/x" + std::to_string(batch));
    Arr v = draw({batch, 3}, "remat/v" + std::to_string(batch), -1, 1);
    Arr g = x, hv = x;
    const double eps = 1e-6;
    for (size_t k = 0; k < x.v.size(); ++k) {
      g.v[k] = grad(x.v[k]);
      // The Hessian is diagonal.
      hv.v[k] = (grad(x.v[k] + eps * v.v[k]) - grad(x.v[k] - eps * v.v[k])) /
                (2 * eps);
    }
    std::vector<Arr> r = call(session, "grad_remat", {x});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(matches(g, r[0], Tol::Trans)) << "gradient through remat";
    std::vector<Arr> h = call(session, "hvp_remat", {x, v});
    ASSERT_EQ(h.size(), 1u);
    for (size_t k = 0; k < hv.v.size(); ++k)
      EXPECT_NEAR(h[0].v[k], hv.v[k], 1e-7 + 1e-5 * std::fabs(hv.v[k]))
          << "hvp through remat at " << k;
  }
}

/// Loops and branches differentiate as their unrolled forms: a scan
/// multiplying by x four times is x^4 (gradient 4x^3, Hessian 12x^2); a
/// while loop squaring y while x doubles below 10 gives y^(2^n), tangent
/// 2^n y^(2^n - 1); a switch differentiates the branch it takes.
TEST(Identity, ControlFlowDerivativesHaveClosedForms) {
  IDENTITY_MODULE(m, "control_flow");
  for (int64_t n : {3, 1}) {
    Arr x = draw({n}, "cf/x" + std::to_string(n), 0.5, 1.5);
    Arr v = draw({n}, "cf/v" + std::to_string(n), -1, 1);
    Arr g = x, hv = x;
    for (size_t k = 0; k < x.v.size(); ++k) {
      g.v[k] = 4 * std::pow(x.v[k], 3);
      hv.v[k] = 12 * x.v[k] * x.v[k] * v.v[k];
    }
    std::vector<Arr> r = call(session, "grad_scan_pow4", {x});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(matches(g, r[0], Tol::Arith)) << "gradient through scan";
    std::vector<Arr> h = call(session, "hvp_scan_pow4", {x, v});
    ASSERT_EQ(h.size(), 1u);
    EXPECT_TRUE(matches(hv, h[0], Tol::Arith)) << "hvp through scan";
  }
  for (double x0 : {0.7, 3.0, 12.0}) {
    int steps = 0;
    for (double x = x0; x < 10; x *= 2)
      ++steps;
    double y = 1.05, power = std::pow(2.0, steps);
    std::vector<Arr> r = call(session, "jvp_while",
                              {f64({}, {x0}), f64({}, {y}), f64({}, {1.0})});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_NEAR(r[0].v[0], std::pow(y, power), 1e-12) << x0;
    EXPECT_NEAR(r[1].v[0], power * std::pow(y, power - 1), 1e-10) << x0;
  }
  Arr x = draw({3}, "cf/switch");
  for (int32_t i : {-2, 0, 1, 5}) {
    Arr index(RLX_DTYPE_I32, {});
    index.v = {double(i)};
    std::vector<Arr> r = call(session, "grad_switch", {index, x});
    ASSERT_EQ(r.size(), 1u);
    Arr want = x;
    for (double &e : want.v)
      e = i <= 0 ? 2 * e : 3 * e * e;
    EXPECT_TRUE(matches(want, r[0], Tol::Arith)) << "switch index " << i;
  }
}

} // namespace

/// vmap(f)(xs) equals f applied to each example (a loop of unbatched calls),
/// for a batch in front, a batch along the last axis, and for
/// vmap(grad(f)): per-example gradients equal the loop of gradients.
TEST(Identity, VmapEqualsLoopOfCalls) {
  IDENTITY_MODULE(m, "vmap");
  Arr w = draw({4, 3}, "vmap/w");
  auto row = [](const Arr &x, int64_t i) {
    return f64({x.shape[1]}, std::vector<double>(x.v.begin() + i * x.shape[1],
                                                 x.v.begin() + (i + 1) * x.shape[1]));
  };
  for (int64_t batch : {3, 1}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Arr xs = draw({batch, 4}, "vmap/xs" + std::to_string(batch));
    std::vector<Arr> ys = call(session, "rows", {xs, w});
    std::vector<Arr> gs = call(session, "per_example", {xs, w});
    ASSERT_EQ(ys.size(), 1u);
    ASSERT_EQ(gs.size(), 1u);
    for (int64_t i = 0; i < batch; ++i) {
      Arr y = call(session, "one", {row(xs, i), w})[0];
      Arr yi = f64({3}, std::vector<double>(ys[0].v.begin() + 3 * i,
                                            ys[0].v.begin() + 3 * (i + 1)));
      EXPECT_TRUE(matches(y, yi, Tol::Arith));
      Arr g = call(session, "grad_one", {row(xs, i), w})[0];
      Arr gi = f64({4, 3}, std::vector<double>(gs[0].v.begin() + 12 * i,
                                               gs[0].v.begin() + 12 * (i + 1)));
      EXPECT_TRUE(matches(g, gi, Tol::Arith));
    }
  }
  // Batch along the last input axis, placed at result axis 1.
  Arr xt = draw({4, 5}, "vmap/xt");
  Arr yt = call(session, "cols", {xt, w})[0];
  ASSERT_EQ(yt.shape, (std::vector<int64_t>{3, 5}));
  for (int64_t j = 0; j < 5; ++j) {
    std::vector<double> col;
    for (int64_t k = 0; k < 4; ++k)
      col.push_back(xt.v[k * 5 + j]);
    Arr y = call(session, "one", {f64({4}, col), w})[0];
    std::vector<double> got;
    for (int64_t k = 0; k < 3; ++k)
      got.push_back(yt.v[k * 5 + j]);
    EXPECT_TRUE(matches(y, f64({3}, got), Tol::Arith));
  }
}

/// vmap(grad) over [B, S, 3] with B and S dynamic: the centered loss
/// Σ (x_ij w_j - mean_k x_ik w_k)^2 has the closed-form gradient
/// 2 Σ_i x_ij (x_ij w_j - r_i); softmax's against central differences of the
/// per-example loss (each example called alone with its own S rows).
TEST(Identity, PerExampleGradsOverDynamicSequence) {
  IDENTITY_MODULE(m, "per_example_dynamic_seq");
  Arr w = draw({3}, "pds/w", -1, 1);
  for (auto [batch, seq] : {std::pair<int64_t, int64_t>{3, 5}, {2, 1}, {1, 4}}) {
    SCOPED_TRACE("batch " + std::to_string(batch) + ", seq " +
                 std::to_string(seq));
    Arr xs = draw({batch, seq, 3},
                  "pds/xs" + std::to_string(batch) + "x" + std::to_string(seq));
    std::vector<Arr> gs = call(session, "pds_per_example", {xs, w});
    ASSERT_EQ(gs.size(), 2u);
    ASSERT_EQ(gs[0].shape, (std::vector<int64_t>{batch, 3}));
    ASSERT_EQ(gs[1].shape, (std::vector<int64_t>{batch, 3}));
    for (int64_t b = 0; b < batch; ++b) {
      const double *x = xs.v.data() + b * seq * 3;
      std::vector<double> closed(3, 0.0);
      for (int64_t i = 0; i < seq; ++i) {
        double r = 0;
        for (int64_t k = 0; k < 3; ++k)
          r += x[i * 3 + k] * w.v[k] / 3;
        for (int64_t j = 0; j < 3; ++j)
          closed[j] += 2 * x[i * 3 + j] * (x[i * 3 + j] * w.v[j] - r);
      }
      Arr example = f64({seq, 3}, std::vector<double>(x, x + seq * 3));
      for (int64_t j = 0; j < 3; ++j) {
        EXPECT_NEAR(gs[0].v[b * 3 + j], closed[j],
                    1e-10 * std::max(1.0, std::fabs(closed[j])))
            << "centered, example " << b << ", w" << j;
        const double h = 1e-5;
        Arr up = w, down = w;
        up.v[j] += h;
        down.v[j] -= h;
        double fd = (call(session, "pds_softmax", {example, up})[0].v[0] -
                     call(session, "pds_softmax", {example, down})[0].v[0]) /
                    (2 * h);
        EXPECT_NEAR(gs[1].v[b * 3 + j], fd, 1e-7 * std::max(1.0, std::fabs(fd)))
            << "softmax, example " << b << ", w" << j;
      }
    }
  }
}

/// jacfwd and jacrev against central finite differences of the function,/// jacfwd and jacrev against central finite differences of the function,
/// hessian against second-order central differences, all in f64.
/// Finite differences are good to about 1e-6 here (truncation h^2 and
/// rounding eps/h^2 for the second differences).
::testing::AssertionResult nearFD(const Arr &fd, const Arr &got) {
  if (fd.shape != got.shape)
    return ::testing::AssertionFailure() << "shape " << shapeString(got.shape)
                                         << " vs " << shapeString(fd.shape);
  for (size_t i = 0; i < fd.v.size(); ++i)
    if (std::fabs(fd.v[i] - got.v[i]) > 1e-6 * std::max(1.0, std::fabs(fd.v[i])))
      return ::testing::AssertionFailure()
             << "element " << i << ": finite differences " << fd.v[i]
             << ", got " << got.v[i];
  return ::testing::AssertionSuccess();
}

TEST(Identity, JacobiansAndHessianMatchFiniteDifferences) {
  IDENTITY_MODULE(m, "jacobians");
  Arr x = draw({3}, "jac/x", -1, 1);
  std::vector<Arr> got = call(session, "jacs", {x});
  ASSERT_EQ(got.size(), 3u);
  auto at = [&](const std::string &fn, std::vector<double> v) {
    return call(session, fn, {f64({3}, v)})[0];
  };
  const double e = 1e-5;
  std::vector<double> jac(6);
  for (int i = 0; i < 3; ++i) {
    std::vector<double> p = x.v, q = x.v;
    p[i] += e;
    q[i] -= e;
    Arr fp = at("jf", p), fq = at("jf", q);
    for (int o = 0; o < 2; ++o)
      jac[o * 3 + i] = (fp.v[o] - fq.v[o]) / (2 * e);
  }
  EXPECT_TRUE(nearFD(f64({2, 3}, jac), got[0]));
  EXPECT_TRUE(nearFD(f64({2, 3}, jac), got[1]));
  const double h = 1e-4;
  std::vector<double> hess(9);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      auto s = [&](double di, double dj) {
        std::vector<double> v = x.v;
        v[i] += di;
        v[j] += dj;
        return at("js", v).v[0];
      };
      hess[i * 3 + j] =
          (s(h, h) - s(h, -h) - s(-h, h) + s(-h, -h)) / (4 * h * h);
    }
  EXPECT_TRUE(nearFD(f64({3, 3}, hess), got[2]));
}

/// A gradient of a function that takes a gradient through a vmapped
/// custom_vjp (tanh with its true rule, so everything has a closed form):
/// f(xs) = sum tanh(xs), grad f = 1 - tanh^2, and the gradient of
/// sum grad f is -2 tanh (1 - tanh^2), also against central differences of
/// the compiled sum grad f.
TEST(Identity, GradOfGradThroughVmappedCustomVjp) {
  IDENTITY_MODULE(m, "vmap_custom_vjp_second_order");
  Arr xs = draw({2, 3}, "vcv/xs", -1.5, 1.5);
  double value = 0;
  Arr grad = xs, second = xs;
  for (size_t k = 0; k < xs.v.size(); ++k) {
    double t = std::tanh(xs.v[k]);
    value += t;
    grad.v[k] = 1 - t * t;
    second.v[k] = -2 * t * (1 - t * t);
  }
  std::vector<Arr> f = call(session, "vcv_f", {xs});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(matches(scalar(value), f[0], Tol::Trans)) << "value";
  std::vector<Arr> g = call(session, "vcv_grad_f", {xs});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(matches(grad, g[0], Tol::Trans)) << "gradient";
  std::vector<Arr> h = call(session, "vcv_grad_sum_grad", {xs});
  ASSERT_EQ(h.size(), 1u);
  EXPECT_TRUE(matches(second, h[0], Tol::Trans)) << "gradient of sum grad f";
  const double e = 1e-5;
  Arr fd = xs;
  for (size_t k = 0; k < xs.v.size(); ++k) {
    Arr p = xs, q = xs;
    p.v[k] += e;
    q.v[k] -= e;
    fd.v[k] = (call(session, "vcv_sum_grad", {p})[0].v[0] -
               call(session, "vcv_sum_grad", {q})[0].v[0]) /
              (2 * e);
  }
  EXPECT_TRUE(nearFD(fd, h[0]));
}
