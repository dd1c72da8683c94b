"""Integrations at the edge: each module adapts qatbe to one framework or service and needs its own extra.

``import qatbe`` imports none of them; importing one without its extra raises ``qatbe.MissingExtraError``
naming the extra to install.
"""
