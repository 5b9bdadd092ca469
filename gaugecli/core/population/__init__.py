"""The population loss in closed form: the loss, its gradient and Hessian for any activation, the compiled
loops of the ReLU family and of squared ReLU, square and erf, which route the arithmetic takes, and the
objectives the integrators descend."""
