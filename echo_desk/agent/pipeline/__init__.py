"""The steps of ``Dispatcher.execute_tool``, each in its own module, around one per-call object.

``call``: the per-call object (``CallRecord`` for the audit, ``Call`` once the checks passed);
``checks``: the refusals before anything runs; ``approval``: the ruling and asking the person;
``execution``: preview and run on a worker, timeouts and retries; ``audit_record``: the record
of the call. ``echo_desk.agent.dispatcher`` puts them in order.
"""
