"""Kernels in closed form: the degree-one arc-cosine kernel of ReLU and its derivatives, on which every
activation's kernel stands."""
