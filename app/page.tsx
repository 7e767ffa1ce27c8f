export default function HomePage() {
  return (
    <main>
      <h1>Shoal</h1>
      <p>
        The API is served under <code>/v1</code>; its description is at <a href="/v1/openapi.json">/v1/openapi.json</a>.
      </p>
    </main>
  );
}
