// Tests on a real server wait for real timers and workers: give them two minutes each.
jest.setTimeout(120_000);
