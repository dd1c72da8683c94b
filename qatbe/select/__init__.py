"""Selection stage: greedy knapsack over weighted scores and token costs."""

from .knapsack import Selection, select

__all__ = ["Selection", "select"]
