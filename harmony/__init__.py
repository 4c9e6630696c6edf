"""harmony: the rulebooks of the PanzerBlitz family as structured clauses.

One loader (:mod:`harmony.loader`) reads a ``rules_data`` folder into one
model (:mod:`harmony.model`); every command reads that model.
"""

__version__ = "0.1.0"
