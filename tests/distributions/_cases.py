"""What the distribution test files share: seeded draws, the ``compare`` function of a KL
pair, and the builders of the families several KL files pair."""

import numpy as np


def draws(seed: int):
    """``u(low, high, *shape)``: uniform draws from a generator of its own, seeded."""
    rng = np.random.default_rng(seed)

    def u(low, high, *shape):
        return rng.uniform(low, high, shape)

    return u


def kl_of(make_p, make_q):
    """A ``compare`` function: the first inputs build p, the rest q."""

    def fn(m, *params):
        cut = make_p.__code__.co_argcount - 1
        p, q = make_p(m, *params[:cut]), make_q(m, *params[cut:])
        return m.distributions.kl_divergence(p, q)

    return fn


def normal(m, loc, scale):
    return m.distributions.Normal(loc, scale)


def uniform(m, low, high):
    return m.distributions.Uniform(low, high)


def exponential(m, rate):
    return m.distributions.Exponential(rate)


def gamma(m, concentration, rate):
    return m.distributions.Gamma(concentration, rate)


def beta(m, c1, c0):
    return m.distributions.Beta(c1, c0)
