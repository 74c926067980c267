"""The operator's requests to the running daemon: one module per request, each a ``Request``
dataclass and its ``apply`` (the shape of Mailman 3's ``commands/eml_*.py``), and one spool
protocol (:mod:`.spool`) shared by the CLI, which drops a request, and the daemon, the single
writer of the store, which applies it. A new request is one module and one line in
:data:`.spool.REQUESTS`."""
