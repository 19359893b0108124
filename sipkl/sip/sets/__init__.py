"""Index sets T of semi-infinite constraints: what the pricing of a semi-infinite program searches.

An index set plays, for a semi-infinite program, the part a kernel family plays for kernel
learning: the family of the columns (index points t) the pricing oracles search. The box and
the finite set (:mod:`~sipkl.sip.sets.box`) and the convex sets (:class:`ConvexSet`, one
module each: :mod:`~sipkl.sip.sets.polytopes`, :mod:`~sipkl.sip.sets.ellipsoids`,
:mod:`~sipkl.sip.sets.product`, :mod:`~sipkl.sip.sets.smooth`,
:mod:`~sipkl.sip.sets.intersection`) sample themselves, state membership, bound linear
functions and describe themselves as smooth inequalities; :mod:`~sipkl.sip.sets.geometry` is
what they share.
"""
from .base import ConvexSet, IndexSet
from .box import Box, FiniteSet
from .ellipsoids import Ball, Ellipsoid
from .intersection import Intersection
from .polytopes import Budget, Polytope, Simplex
from .product import Product
from .smooth import SmoothSet, smooth_intersection

__all__ = ["Ball", "Box", "Budget", "ConvexSet", "Ellipsoid", "FiniteSet", "IndexSet",
           "Intersection", "Polytope", "Product", "Simplex", "SmoothSet", "smooth_intersection"]
