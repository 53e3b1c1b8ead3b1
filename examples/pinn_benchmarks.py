"""Every benchmark PINN problem, trained at toy size: a smoke run of the whole pipeline.

    python examples/pinn_benchmarks.py            # the "tiny" preset of each problem
    leafgrad solve burgers                        # one problem at full size (minutes)

The tiny preset (an 8 x 2 network, 64 points, 30 steps) only shows that each problem
builds, trains and reports; its errors are large by design. The README lists the errors
measured with the default settings.
"""

import math

from leafgrad import pinn


def main():
    print(f"{'problem':16s} {'relative L2':>12s} {'steps':>6s}  learned")
    for name in pinn.problems.PROBLEMS:
        trainer = pinn.solve(name, preset="tiny", progress=False)
        error = trainer.relative_l2()
        assert error is not None and math.isfinite(error), name
        assert trainer.history.steps, name
        learned = ", ".join(f"{k} = {v:.4g}" for k, v in trainer.learned_coefficients().items())
        print(f"{name:16s} {error:12.3e} {trainer.step:6d}  {learned or '-'}")


if __name__ == "__main__":
    main()
