"""Schema entries of the program-time catalogue functions (imported by the schema generator).

Kept apart from `catalog` so that importing the package does not import the generator.
"""

from __future__ import annotations

from ..schema import schema_function
from .catalog import GetEnginesArgs, GetEnginesResult, GetFlavorsArgs, GetFlavorsResult, get_engines, get_flavors

schema_function("mltrain:modelarts:getFlavors", GetFlavorsArgs, GetFlavorsResult)(get_flavors)
schema_function("mltrain:modelarts:getEngines", GetEnginesArgs, GetEnginesResult)(get_engines)
