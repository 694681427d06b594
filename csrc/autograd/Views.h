#pragma once
// Inside the autograd library only (see Views.cpp).
#include "tcore/autograd/autograd.h"

namespace tcore::autograd {

// The grad_fn of view t after an in-place write through its base or another view:
// replayed from the base (and recorded in m).
std::shared_ptr<Node> view_grad_fn(const Tensor& t, AutogradMeta& m);

}  // namespace tcore::autograd
