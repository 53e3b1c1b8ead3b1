"""Op-table samples for ops/composites.py (its one primitive; the rest are composites)."""

import leafgrad as lg

from .optable import OpSample

SAMPLES = [OpSample("erfinv", lambda x: lg.erfinv(x), ((5,),), domain=(-0.8, 0.8))]
