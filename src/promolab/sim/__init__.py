"""The simulator: state, clock, ids, operations, webhooks, journal (prices with promolab.engine)."""
