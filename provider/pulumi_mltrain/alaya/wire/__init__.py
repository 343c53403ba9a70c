"""Alaya NeW's wire: its paths and constants, its client and the models of its answers."""
