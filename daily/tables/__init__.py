"""The strategy tables' machinery: where a host keeps its tables, how one is built, queued,
locked, fetched from the store every host shares, checked against its digest and mapped.

The pure engine that fills and reads a table is :mod:`daily.strategy`; this package does
the files, the locks, the processes and the store, and is handed its settings
(:class:`daily.tables.files.Site`) by the service, which reads them once.
"""
