"""A peer of IKL at large n: a sparse variational Gaussian-process classifier with ARD.

GPyTorch's SVGP (Hensman, Matthews & Ghahramani 2015), as GPyTorch's own SVGP example fits
one: the latent f ~ GP(c, s·k_ARD), k_ARD(x, x′) = exp(−½ Σ_d (x_d − x′_d)²/ℓ_d²)
with one length ℓ_d per dimension (the widths IKL's GaussianARD learns, θ_d = 1/(2ℓ_d²)),
q inducing points (a random subset of the training points, then learned), a Cholesky
variational distribution, the Bernoulli likelihood (probit), and Adam on the evidence lower
bound over minibatches — every hyperparameter learned by the bound, locally. A point is
classified by the sign of its predictive mean minus ½.

Needs PyTorch and GPyTorch (not dependencies of sipkl: the extra ``peers``, ``pip install -e
'.[peers]'``); used by ``ikl_large.py --methods gpytorch``.
"""
from __future__ import annotations

import time

import numpy as np


class SVGPClassifier:
    """Fit and score as a scikit-learn classifier (labels in {−1, +1}): ``inducing`` points,
    ``epochs`` passes over minibatches of ``batch_size``, Adam with step ``lr``, stopped early
    after ``time_limit`` seconds (checked after each minibatch); ``device`` a torch device,
    ``threads`` torch's intra-op threads. ``epochs_`` is what the fit ran."""

    def __init__(self, inducing: int = 500, epochs: int = 50, batch_size: int = 1024,
                 lr: float = 0.01, time_limit: float = None, device: str = "cpu",
                 threads: int = 1, random_state: int = 0):
        self.inducing, self.epochs, self.batch_size, self.lr = inducing, epochs, batch_size, lr
        self.time_limit, self.device, self.threads = time_limit, device, threads
        self.random_state = random_state

    def fit(self, X, y):
        import gpytorch
        import torch

        torch.set_num_threads(self.threads)
        torch.manual_seed(self.random_state)
        t0 = time.perf_counter()
        X_t = torch.as_tensor(np.asarray(X, dtype=np.float32), device=self.device)
        y_t = torch.as_tensor((np.asarray(y) > 0).astype(np.float32), device=self.device)
        rng = np.random.default_rng(self.random_state)
        Z = X_t[torch.as_tensor(rng.choice(len(X), self.inducing, replace=False),
                                device=self.device)].clone()

        class SVGP(gpytorch.models.ApproximateGP):
            def __init__(self, Z):
                distribution = gpytorch.variational.CholeskyVariationalDistribution(len(Z))
                strategy = gpytorch.variational.VariationalStrategy(
                    self, Z, distribution, learn_inducing_locations=True)
                super().__init__(strategy)
                self.mean_module = gpytorch.means.ConstantMean()
                self.covar_module = gpytorch.kernels.ScaleKernel(
                    gpytorch.kernels.RBFKernel(ard_num_dims=Z.shape[1]))

            def forward(self, x):
                return gpytorch.distributions.MultivariateNormal(self.mean_module(x),
                                                                 self.covar_module(x))

        self.model_ = SVGP(Z).to(self.device)
        self.likelihood_ = gpytorch.likelihoods.BernoulliLikelihood().to(self.device)
        self.model_.train()
        self.likelihood_.train()
        optimizer = torch.optim.Adam(self.model_.parameters(), lr=self.lr)
        elbo = gpytorch.mlls.VariationalELBO(self.likelihood_, self.model_, num_data=len(X))
        generator = torch.Generator(device="cpu").manual_seed(self.random_state)
        self.epochs_ = 0
        for _ in range(self.epochs):
            for batch in torch.randperm(len(X), generator=generator).split(self.batch_size):
                batch = batch.to(self.device)
                optimizer.zero_grad()
                loss = -elbo(self.model_(X_t[batch]), y_t[batch])
                loss.backward()
                optimizer.step()
                if self.time_limit is not None and time.perf_counter() - t0 > self.time_limit:
                    return self
            self.epochs_ += 1
        return self

    def predict(self, X):
        import gpytorch
        import torch

        self.model_.eval()
        self.likelihood_.eval()
        X_t = torch.as_tensor(np.asarray(X, dtype=np.float32), device=self.device)
        with torch.no_grad(), gpytorch.settings.fast_pred_var():
            mean = torch.cat([self.likelihood_(self.model_(part)).mean
                              for part in X_t.split(4096)])
        return np.where(mean.cpu().numpy() > 0.5, 1.0, -1.0)

    def score(self, X, y) -> float:
        return float(np.mean(self.predict(X) == np.asarray(y)))

    def lengthscales(self) -> np.ndarray:
        """The learned ℓ_d."""
        return self.model_.covar_module.base_kernel.lengthscale.detach().cpu().numpy().ravel()
