// A jobs thread that fails as it starts (test/jobs-thread.test.ts).
throw new Error('the jobs could not start')
