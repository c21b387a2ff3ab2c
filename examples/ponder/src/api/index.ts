import { db } from 'ponder:api';
import schema from 'ponder:schema';
import { Hono } from 'hono';
import { client, graphql } from 'ponder';

const app = new Hono();

// GraphQL at / and /graphql, and SQL over HTTP at /sql/* (what @ponder/client speaks)
app.use('/', graphql({ db, schema }));
app.use('/graphql', graphql({ db, schema }));
app.use('/sql/*', client({ db, schema }));

export default app;
