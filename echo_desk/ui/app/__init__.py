"""The app itself: start-up (``main.run_gui``), the services loaded after the first frame, the
single instance and the icon. Above the chat window, the dialogs and the settings pages, which
it wires together."""
