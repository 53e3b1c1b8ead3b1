"""The functorch PINN and ensembling patterns on nn modules, against PyTorch: per-point
Laplacians by vmap(hessian(functional_call)), trained through; stacked model ensembles."""

import numpy as np

from ._same import rand, same


def _model(m, seed=0):
    rng = np.random.default_rng(seed)
    model = m.nn.Sequential(
        m.nn.Linear(2, 8), m.nn.Tanh(), m.nn.Linear(8, 8), m.nn.Tanh(), m.nn.Linear(8, 1)
    ).double()
    with m.no_grad():
        for p in model.parameters():
            p.copy_(m.tensor(rng.standard_normal(tuple(p.shape)) * 0.7))
    return model


def test_per_point_laplacian_and_its_parameter_gradients(pytorch):
    def fn(m, x):
        model = _model(m)
        params = dict(model.named_parameters())

        def u(p, xi):
            return m.func.functional_call(model, p, (xi,)).squeeze()

        def laplacian(xi):
            return m.diagonal(m.func.hessian(u, argnums=1)(params, xi)).sum()

        lap = m.func.vmap(laplacian)(x)
        grads = m.autograd.grad((lap**2).mean(), list(params.values()), materialize_grads=True)
        return lap, grads

    same(pytorch, fn, [rand(7, 2)])


def test_per_point_gradients_of_a_module_output(pytorch):
    def fn(m, x):
        model = _model(m, seed=1)
        du = m.func.vmap(m.func.jacrev(lambda xi: model(xi).squeeze()))(x)
        return du, m.func.vmap(m.func.jacfwd(lambda xi: model(xi)))(x)

    same(pytorch, fn, [rand(5, 2)])


def test_ensemble_of_stacked_models(pytorch):
    def fn(m, x):
        models = [_model(m, seed=s) for s in range(3)]
        params, buffers = m.func.stack_module_state(models)

        def run(p, b, data):
            return m.func.functional_call(models[0], (p, b), (data,))

        out = m.func.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
        assert all(p.requires_grad and p.is_leaf for p in params.values())
        return out, m.autograd.grad(out.sum(), list(params.values()))

    same(pytorch, fn, [rand(4, 2)])


def test_second_derivatives_by_jacrev_of_jacrev_with_parameters_in_dims_none(pytorch):
    def fn(m, x):
        model = _model(m, seed=2)
        params = {k: v.detach().requires_grad_() for k, v in model.named_parameters()}

        def u(p, xi):
            return m.func.functional_call(model, p, (xi,)).squeeze()

        d2u = m.func.vmap(m.func.jacrev(m.func.jacrev(u, argnums=1), argnums=1), in_dims=(None, 0))(
            params, x
        )
        residual = d2u[:, 0, 0] + d2u[:, 1, 1] - m.sin(x[:, 0])
        loss = (residual**2).mean()
        return d2u, m.autograd.grad(loss, list(params.values()), materialize_grads=True)

    same(pytorch, fn, [rand(6, 2)])
