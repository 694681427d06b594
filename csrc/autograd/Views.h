#pragma once
// Inside the autograd library only (see Views.cpp).
#include "tcore/autograd/autograd.h"

namespace tcore::autograd {

// The grad_fn of view t after an in-place write through its base or another view:
// replayed from the base (and recorded in m).
std::shared_ptr<Node> view_grad_fn(const Tensor& t, AutogradMeta& m);

// How view t is replayed from its base as the base is now (its operators, or its geometry when
// the base was restrided in place or as_strided made it).
ViewFn view_replay(const Tensor& t);

}  // namespace tcore::autograd
