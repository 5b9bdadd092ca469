"""Tasks other than the gauge model on which the analyses are run: modular addition (Tian's
task, the one Xu's lock-in study was made for), its network, loss and full-batch training."""
