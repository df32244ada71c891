"""Clients of the Dékabès server: the shared SDK (``clients.sdk``) and the computer
players' runner (``clients.bots``). Everything here talks to the server only through
its public REST/WebSocket API."""
