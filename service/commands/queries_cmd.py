"""``chesskb queries``: list the canned competency queries with their parameters."""

from __future__ import annotations

import json

import click


@click.command("queries")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(fmt: str) -> None:
    """List the canned queries (run one with `chesskb query --name NAME --param k=v`)."""
    from chesskb.queries import list_queries

    canned = list_queries()
    if fmt == "json":
        click.echo(
            json.dumps(
                [
                    {
                        "name": q.name,
                        "title": q.title,
                        "description": q.description,
                        "params": [
                            {"name": p.name, "type": p.type, "default": p.default, "help": p.help} for p in q.params
                        ],
                    }
                    for q in canned
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    width = max(len(q.name) for q in canned)
    for q in canned:
        params = ", ".join(
            f"{p.name}={p.default}" if p.default is not None else f"{p.name} (required)" for p in q.params
        )
        click.echo(f"{q.name:<{width}}  {q.title}" + (f"  [{params}]" if params else ""))
