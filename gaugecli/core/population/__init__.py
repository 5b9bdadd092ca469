"""The population loss in closed form: the loss, its gradient and Hessian for any activation, the compiled
loops of the ReLU family and which route the arithmetic takes, and the objectives the integrators descend."""
