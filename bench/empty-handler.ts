// The cold-start bench's reference: a Lambda entry that imports nothing, bundled like the others.
export const handler = async (): Promise<{ statusCode: number; body: string }> => ({ statusCode: 200, body: '' });
