"""The population loss in closed form: kernels, loss, gradient, Hessian, compiled loops."""
