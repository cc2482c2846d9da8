"""Reports over a built knowledge base: event standings (``standings``, the one scoring rule) and the
counts ``chesskb stats`` and ``chesskb sources`` print (``stats``)."""
