"""A seat changing hands (issue 13): ``substitution`` (who may take a seat, under which name;
the bench of volunteers) and ``handover`` (the packet the newcomer receives, the notices).

Pure over the Table's port (:class:`~pbem.table.ports.AnsweringTable`); the desk's
``REMPLACER`` (pbem/desk/replace.py) and ``pbem seat replace`` (pbem/cli/seat.py) both go
through it.
"""
