// A sandbox worker that cannot start (its module fails to load).
throw new Error('no sandbox here');
